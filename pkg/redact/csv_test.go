package redact

import (
	"strings"
	"testing"
)

func TestCSVHeaderAt(t *testing.T) {
	t.Parallel()
	run := func(sc *scanner, s string) {
		i := strings.Index(strings.ToLower(s), "password")
		sc.csvHeaderAt(s, i, i+len("password"))
	}
	checkRecognizer(t, "csvHeaderAt", run, []recognizerCase{
		{"service,username,password,rotated\nbackup,svc_backup,Bk!incElfsUkkK,2026-10-01\nweb,www,Zq8vN2kLm4Xp,2026-10-02",
			"SECRET:Bk!incElfsUkkK SECRET:Zq8vN2kLm4Xp"},
		{"Password,Login\r\nQ9v!xLm2,b\r\n", "SECRET:Q9v!xLm2"},
		{"user,password\nann,${DB_PASSWORD}\nbob,changeme", ""},   // references and placeholders stay
		{"user,password,x\nann,Q9v!xLm2\nbob,Zq8vN2kLm4Xp,y", ""}, // a ragged row ends the table
		{"user,password\n" + `ann,"Q9v,xLm2"`, ""},                // quoted fields are not split by hand
		{"reset the password, then log in, again\nfoo,bar,baz", ""},
		{"user,password", ""}, // no row
	})
}

func TestCSVPasswordsRedacted(t *testing.T) {
	t.Parallel()
	r := New(AllTypes()...)
	for in, want := range map[string]string{
		"service,username,password,rotated\nbackup,svc,Bk!incElfsUkkK,2026-10-01\n": "service,username,password,rotated\nbackup,svc,[REDACTED_SECRET],2026-10-01\n",
		"id,USER_PASSWORD\n1,Zq8vN2kLm4Xp\n":                                        "id,USER_PASSWORD\n1,[REDACTED_SECRET]\n",
		"user,password_hint\nann,Q9v!xLm2\n":                                        "user,password_hint\nann,Q9v!xLm2\n",
	} {
		if got, _ := r.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}
