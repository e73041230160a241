//go:build race

package redacthist_test

// raceOn makes the tests of large inputs smaller under the race detector, which multiplies
// their time.
const raceOn = true
