package setup

import (
	"errors"
	"io/fs"
	"os"
)

// exists reports whether something (file, directory or symlink) is at path.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}
