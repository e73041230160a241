package redact

import "testing"

func TestCSVPasswords(t *testing.T) {
	t.Parallel()
	run := func(sc *scanner, s string) { sc.scanCSVPasswords(s) }
	checkRecognizer(t, "scanCSVPasswords", run, []recognizerCase{
		{"service,username,password,rotated\nbackup,svc_backup,Bk!incElfsUkkK,2026-10-01\nweb,www,Zq8vN2kLm4Xp,2026-10-02",
			"SECRET:Bk!incElfsUkkK SECRET:Zq8vN2kLm4Xp"},
		{"Password,Login\r\nQ9v!xLm2,b\r\n", "SECRET:Q9v!xLm2"},
		{"user,db_password\nann,${DB_PASSWORD}\nbob,changeme", ""}, // references and placeholders stay
		{"user,password,x\nann,Q9v!xLm2\nbob,Zq8vN2kLm4Xp,y", ""},  // a ragged row ends the table
		{`user,password` + "\n" + `ann,"Q9v,xLm2"`, ""},            // quoted fields are not split by hand
		{"reset the password, then log in, again\nfoo,bar,baz", ""},
		{"user,password_hint\nann,Q9v!xLm2", ""},
	})
}
