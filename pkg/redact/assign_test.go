package redact

import (
	"strings"
	"testing"
)

func TestNamedValue(t *testing.T) {
	t.Parallel()
	// the assignment walk calls namedValue after "name": or name=
	run := func(sc *scanner, s string) {
		v := strings.IndexAny(s, ":=") + 1
		sc.namedValue(s, v, false)
	}
	checkRecognizer(t, "namedValue", run, []recognizerCase{
		{`"name": "DB_PASSWORD", "value": "Tr0ub4dor&3"`, "SECRET:Tr0ub4dor&3"},
		{"name: API_TOKEN\n  value: a1b2c3d4e5f6a7b8", "API_KEY:a1b2c3d4e5f6a7b8"},
		{`{\"name\":\"DB_PASSWORD\",\"value\":\"Tr0ub4dor3\"}`, `SECRET:Tr0ub4dor3`},
		{`<add key="ClientSecret" value="Xk9Lq2Vw7Rt"/>`, "SECRET:Xk9Lq2Vw7Rt"},
		{`"name": "LOG_LEVEL", "value": "Tr0ub4dor&3"`, ""},
		{`"name": "DB_PASSWORD", "values": "Tr0ub4dor&3"`, ""},
		{`"name": "DB_PASSWORD", "value": "changeme"`, ""},
		// an XML element named by its attribute: Windows event data, .NET settings
		{`<Data Name="Password">Xv8!nXcz,pg Az</Data>`, "SECRET:Xv8!nXcz,pg Az"},
		{`<Data Name="ApiToken">Zq8vN2kLm4Xp7Rt9Wc3Yb6Hd</Data>`, "API_KEY:Zq8vN2kLm4Xp7Rt9Wc3Yb6Hd"},
		{`<Data Name="TargetUserName">administrator</Data>`, ""},
		{`<Data Name="PasswordLastSet">%%1794</Data>`, ""},
		{`<Data Name="Password"></Data>`, ""},
	})
}

func TestSiblingValueStart(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int
	}{
		{`", "value": "x"`, 12},
		{"\n  - value= x", 12},
		{`\n  value: x`, 11},
		{`", "valueFrom": {}`, -1},
		{`", "value" x`, -1},
		{`"` + strings.Repeat(" ", 60) + `"value": "x"`, -1},
	}
	for _, tt := range tests {
		if got := siblingValueStart(tt.in, 0); got != tt.want {
			t.Errorf("siblingValueStart(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
