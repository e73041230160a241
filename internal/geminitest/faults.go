package geminitest

import "sync"

// RandomFaults returns a fault function for WithFaults that answers fault to a
// share rate (0 to 1) of the requests. The choice is a pure function of seed and
// the request's arrival number Seq, so for a given seed the same number of
// faults is injected over the first N requests, however the requests are
// scheduled.
func RandomFaults(rate float64, seed uint64, fault Reply) func(*Request) *Reply {
	return func(req *Request) *Reply {
		if unitFloat(seed, uint64(req.Seq)) >= rate {
			return nil
		}
		f := fault
		return &f
	}
}

// OncePerCall wraps a fault function so that a fault is never given twice in a
// row to the same call: after a request gets a fault, the next request with the
// same kind, model and body passes, whatever f says. A client that retries a
// failed call therefore succeeds on its first retry. Calls are told apart by
// their body only, so give concurrent calls distinct prompts to rely on it.
func OncePerCall(f func(*Request) *Reply) func(*Request) *Reply {
	var (
		mu      sync.Mutex
		pending = map[string]int{} // faults given per call, not yet followed by a pass
	)
	return func(req *Request) *Reply {
		key := req.Kind + "\x00" + req.Model + "\x00" + string(req.Body)
		mu.Lock()
		defer mu.Unlock()
		if pending[key] > 0 {
			if pending[key]--; pending[key] == 0 {
				delete(pending, key)
			}
			return nil
		}
		r := f(req)
		if r != nil {
			pending[key]++
		}
		return r
	}
}

// unitFloat hashes (seed, n) to a float64 in [0, 1) with SplitMix64.
func unitFloat(seed, n uint64) float64 {
	z := seed + n*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11) / (1 << 53)
}

// failure is a fault scripted by FailNext.
type failure struct {
	n     int
	reply Reply
}

// FailNext makes the next n requests of a kind fail with reply, which should have a
// Status (e.g. 429 with a RetryDelay, or 500). The kinds are those of the model methods
// (KindGenerateContent...), of the Batch API (KindBatchGet...) and of the Files API
// (KindFileUpload...). For the model methods, a scripted failure comes before
// WithFaults and the queue. A later call for the same kind replaces an earlier one.
func (s *Server) FailNext(kind string, n int, reply Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n <= 0 {
		delete(s.failures, kind)
		return
	}
	s.failures[kind] = &failure{n: n, reply: reply}
}

// takeFailure consumes one scripted failure of kind, if any.
func (s *Server) takeFailure(kind string) *Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.failures[kind]
	if f == nil {
		return nil
	}
	if f.n--; f.n == 0 {
		delete(s.failures, kind)
	}
	r := f.reply
	return &r
}
