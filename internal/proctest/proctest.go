// Package proctest tells tests whether a process still runs, as a person would see it in ps.
package proctest
