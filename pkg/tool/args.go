package tool

import (
	"fmt"
	"math"
	"strings"
)

// ArgError is a bad argument: its text goes back to the model as {"error": ...}.
type ArgError string

func (e ArgError) Error() string { return string(e) }

// String returns the string argument name; a required one that is missing, empty or not a
// string is an ArgError.
func String(args map[string]any, name string, required bool) (string, error) {
	v, ok := args[name]
	if !ok || v == nil {
		if required {
			return "", ArgError(fmt.Sprintf("missing argument %q", name))
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", ArgError(fmt.Sprintf("argument %q must be a string, not %T", name, v))
	}
	s = strings.TrimSpace(s)
	if s == "" && required {
		return "", ArgError(fmt.Sprintf("argument %q is empty", name))
	}
	return s, nil
}

// Int returns the integer argument name, def when absent, within [lo, hi]. JSON numbers come
// as float64; a whole number written as a string is taken too.
func Int(args map[string]any, name string, def, lo, hi int) (int, error) {
	v, ok := args[name]
	if !ok || v == nil {
		return def, nil
	}
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case int:
		f = float64(x)
	case int64:
		f = float64(x)
	case string:
		if _, err := fmt.Sscan(x, &f); err != nil {
			return 0, ArgError(fmt.Sprintf("argument %q must be a number, not %q", name, x))
		}
	default:
		return 0, ArgError(fmt.Sprintf("argument %q must be a number, not %T", name, v))
	}
	if f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		return 0, ArgError(fmt.Sprintf("argument %q must be a whole number from %d to %d", name, lo, hi))
	}
	return int(f), nil
}
