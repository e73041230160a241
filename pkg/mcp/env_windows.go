package mcp

// serverEnvExtra is what a program on Windows needs to start at all (SystemRoot for the C
// runtime and Winsock, ComSpec and PATHEXT for npx's shims, the profile folders for npm's
// cache), as the MCP reference SDK gives its servers. None of it is a credential.
var serverEnvExtra = []string{"APPDATA", "COMSPEC", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATHEXT",
	"PROCESSOR_ARCHITECTURE", "PROGRAMFILES", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "TMP", "USERNAME",
	"USERPROFILE", "WINDIR"}

// envFoldCase: Windows' environment names are case-insensitive ("Path").
const envFoldCase = true
