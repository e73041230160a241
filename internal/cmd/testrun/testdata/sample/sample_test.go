// Package sample is run by the runner's own tests as the command under test.
package sample

import (
	"os"
	"testing"
)

func TestPasses(t *testing.T) {}

func TestFailsWhenAsked(t *testing.T) {
	if os.Getenv("TESTRUN_SAMPLE_FAIL") == "1" {
		t.Fatal("asked to fail")
	}
}

func BenchmarkSample(b *testing.B) {
	for b.Loop() {
	}
}

func TestSkipsWhenAsked(t *testing.T) {
	if os.Getenv("TESTRUN_SAMPLE_FAIL") == "1" {
		t.Skip("asked to skip")
	}
}
