package tokenbudget

import "math"

// Calibration bounds. A single observation is clamped to [minObservation, maxObservation]
// (a usage report that far off is about something else: cached content, a tool), and the
// smoothed ratio to [MinRatio, MaxRatio].
const (
	MinRatio       = 0.5
	MaxRatio       = 3.0
	minObservation = 0.25
	maxObservation = 4.0
	// minSample is the smallest estimate worth learning from: tiny requests are all overhead.
	minSample = 64
	// The ratio moves faster up (the estimate was short, requests risk being too long) than
	// down.
	alphaUp   = 0.5
	alphaDown = 0.2
)

// Calibrator learns how the model's reported prompt tokens compare with the estimates of what
// was sent, and scales later estimates by that ratio. The zero value is ready (ratio 1). It is
// not safe for concurrent use.
type Calibrator struct {
	ratio   float64
	samples int
}

// Ratio is the current ratio of reported to estimated tokens.
func (c *Calibrator) Ratio() float64 {
	if c.samples == 0 {
		return 1
	}
	return c.ratio
}

// Samples is the number of observations learnt from.
func (c *Calibrator) Samples() int { return c.samples }

// Observe learns from one request: the model reported prompt tokens for a request estimated at
// estimated tokens.
func (c *Calibrator) Observe(reported, estimated int) {
	if reported <= 0 || estimated < minSample {
		return
	}
	obs := clamp(float64(reported)/float64(estimated), minObservation, maxObservation)
	if c.samples == 0 {
		c.ratio = obs
	} else {
		alpha := alphaDown
		if obs > c.ratio {
			alpha = alphaUp
		}
		c.ratio += alpha * (obs - c.ratio)
	}
	c.ratio = clamp(c.ratio, MinRatio, MaxRatio)
	c.samples++
}

// AtLeast raises the ratio to at least reported/estimated at once, for a hard signal such as
// the model refusing a request as too long.
func (c *Calibrator) AtLeast(reported, estimated int) {
	if reported <= 0 || estimated <= 0 {
		return
	}
	r := clamp(float64(reported)/float64(estimated), MinRatio, MaxRatio)
	if c.samples == 0 || r > c.ratio {
		c.ratio = r
	}
	c.samples++
}

// Tokens converts a raw estimate into calibrated tokens (rounded up).
func (c *Calibrator) Tokens(raw int) int {
	return int(math.Ceil(float64(raw) * c.Ratio()))
}

// Raw converts a number of calibrated tokens into the raw estimate that fits in it (rounded
// down).
func (c *Calibrator) Raw(tokens int) int {
	if tokens <= 0 {
		return 0
	}
	return int(float64(tokens) / c.Ratio())
}

func clamp(v, lo, hi float64) float64 {
	return math.Min(math.Max(v, lo), hi)
}
