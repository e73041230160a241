package testenv

import (
	"runtime"
	"testing"
)

// fakeTB records how a helper ended the test.
type fakeTB struct {
	testing.TB
	fatal, skip bool
}

func (f *fakeTB) Helper()               {}
func (f *fakeTB) Fatalf(string, ...any) { f.fatal = true; runtime.Goexit() }
func (f *fakeTB) Skipf(string, ...any)  { f.skip = true; runtime.Goexit() }

// Without PUBSUB_EMULATOR_HOST a test is skipped, except under the runner and in CI, where it
// fails; with it, the address is returned.
func TestPubSubHostRequired(t *testing.T) {
	for _, tc := range []struct {
		host, require, ci string
		fatal, skip       bool
	}{
		{"127.0.0.1:1", "", "", false, false},
		{"", "", "", false, true},
		{"", "1", "", true, false},
		{"", "", "true", true, false},
	} {
		t.Setenv(EnvPubSubHost, tc.host)
		t.Setenv(EnvRequireEmulator, tc.require)
		t.Setenv("CI", tc.ci)
		f := &fakeTB{}
		var got string
		done := make(chan struct{})
		go func() {
			defer close(done)
			got = PubSubHost(f)
		}()
		<-done
		if f.fatal != tc.fatal || f.skip != tc.skip || (tc.host != "" && got != tc.host) {
			t.Errorf("%+v: fatal=%v skip=%v host=%q", tc, f.fatal, f.skip, got)
		}
	}
}
