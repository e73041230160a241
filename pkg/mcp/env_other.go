//go:build !windows

package mcp

// serverEnvExtra is empty where the common allow-list is enough to start a program.
var serverEnvExtra []string

const envFoldCase = false
