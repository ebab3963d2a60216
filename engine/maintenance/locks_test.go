package maintenance

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestRefLocks(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	mk := func(rel string, age time.Duration) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if got := RefLocks(dir, now); len(got) != 0 {
		t.Fatalf("no entire refs yet: %v", got)
	}
	cp := mk("refs/heads/entire/checkpoints/v1.lock", 5*time.Minute)
	mk("refs/heads/entire/checkpoints/v1", time.Hour) // the ref itself
	mk("refs/heads/main.lock", time.Hour)             // not entire's
	packed := mk("packed-refs.lock", 2*time.Second)
	got := RefLocks(dir, now)
	if len(got) != 2 || got[0].Path != cp || got[1].Path != packed {
		t.Fatalf("RefLocks = %v; want %s and %s", got, cp, packed)
	}
	if got[0].Age < 5*time.Minute-time.Second || got[0].Age > 5*time.Minute+time.Second {
		t.Errorf("age = %v; want about 5m", got[0].Age)
	}
}
