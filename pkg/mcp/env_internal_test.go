package mcp

import (
	"strings"
	"testing"
)

// A stdio server's environment on Windows: the names a program needs to start, whatever their
// case ("Path", "SystemRoot"), and still no credential; a config's own value wins over any case
// of its name.
func TestServerEnvWindows(t *testing.T) {
	t.Parallel()
	windowsExtra := []string{"APPDATA", "COMSPEC", "PATHEXT", "SYSTEMROOT", "TEMP", "USERPROFILE"}
	for _, tc := range []struct {
		name     string
		environ  []string
		own      map[string]string
		allowed  []string
		foldCase bool
		want     string
	}{
		{"windows names in any case",
			[]string{`Path=C:\Windows`, `SystemRoot=C:\Windows`, `ComSpec=C:\Windows\system32\cmd.exe`, "PATHEXT=.COM;.EXE", `USERPROFILE=C:\Users\a`,
				"GEMINI_API_KEY=secret", `GOOGLE_APPLICATION_CREDENTIALS=C:\k.json`, "AWS_SECRET_ACCESS_KEY=x"},
			nil, append(allowedEnv, windowsExtra...), true,
			`Path=C:\Windows SystemRoot=C:\Windows ComSpec=C:\Windows\system32\cmd.exe PATHEXT=.COM;.EXE USERPROFILE=C:\Users\a`},
		{"the config's value wins over another case",
			[]string{`Temp=C:\T`, "Path=x"}, map[string]string{"TEMP": `D:\T`}, append(allowedEnv, windowsExtra...), true,
			`Path=x TEMP=D:\T`},
		{"case matters elsewhere",
			[]string{"Path=/bin", "PATH=/usr/bin", "SystemRoot=x"}, nil, allowedEnv, false,
			"PATH=/usr/bin"},
		{"no name, no entry",
			[]string{"=C:=C:\\", "PATH"}, nil, allowedEnv, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := strings.Join(serverEnv(tc.environ, tc.own, tc.allowed, tc.foldCase), " "); got != tc.want {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
