//go:build !race

package redacthist_test

const raceOn = false
