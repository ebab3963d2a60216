//go:build !unix

package gitexec

import "os"

// mapFile reads a file whole where mapping it is not available.
func mapFile(path string) (data []byte, release func(), err error) {
	data, err = os.ReadFile(path)
	return data, func() {}, err
}
