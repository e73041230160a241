package index

import (
	"math"
	"testing"
)

func TestCosine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b []float32
		want float64
	}{
		{[]float32{1, 0}, []float32{1, 0}, 1},
		{[]float32{1, 0}, []float32{0, 1}, 0},
		{[]float32{1, 1}, []float32{-1, -1}, -1},
		{[]float32{3, 4}, []float32{6, 8}, 1},
		{[]float32{0, 0}, []float32{1, 2}, 0},
	} {
		if got := Cosine(tc.a, tc.b); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Cosine(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
