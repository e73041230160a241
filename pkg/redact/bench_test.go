package redact

import (
	"fmt"
	"strings"
	"testing"
)

// sampleAlert is a GuardDuty-like finding as a tool returns it.
const sampleAlert = `{"schemaVersion":"2.0","accountId":"123456789012","region":"us-east-1","id":"16afba5c5c43e07c9e3e5e2e544e95df",` +
	`"type":"UnauthorizedAccess:EC2/SSHBruteForce","resource":{"resourceType":"Instance","instanceDetails":{"instanceId":"i-0abc1234def567890",` +
	`"networkInterfaces":[{"privateIpAddress":"10.0.12.34","publicIp":"54.12.34.56"}],"tags":[{"key":"Owner","value":"alice@example.com"}]},` +
	`"accessKeyDetails":{"accessKeyId":"ASIAY34FZKBOKMUTVV7A","userName":"deploy"}},"service":{"count":42,"eventFirstSeen":"2023-04-16T06:11:53.438Z",` +
	`"action":{"networkConnectionAction":{"remoteIpDetails":{"ipAddressV4":"198.51.100.7"},"remotePortDetails":{"port":22}}}},"severity":8.0}`

// sampleProse is analyst conversation in English and Japanese.
const sampleProse = "The instance i-0abc1234def567890 saw 42 SSH attempts from 198.51.100.7 between 2023-04-16T06:11:53Z and 07:22. " +
	"I checked the runbook at https://wiki.example.com/runbooks/ssh and the owner is on call; their phone is 090-1234-5678. " +
	"The leaked config had password=Tr0ub4dor&3 and the token ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R, both rotated now. " +
	"送信元IPは198.51.100.7で、担当者のメールは yamada.taro@example.jp です。ハッシュ d41d8cd98f00b204e9800998ecf8427e は既知のマルウェアではありません。\n"

func mixedText(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		if i%2 == 0 {
			b.WriteString(sampleAlert)
		} else {
			b.WriteString(sampleProse)
		}
		b.WriteByte('\n')
	}
	return b.String()[:size]
}

func BenchmarkString(b *testing.B) {
	for _, size := range []int{4 << 10, 1 << 20} {
		s := mixedText(size)
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for b.Loop() {
				all.String(s)
			}
		})
	}
	clean := strings.Repeat("The quick brown fox jumps over the lazy dog while the analyst reviews logs. ", 14000)[:1<<20]
	b.Run("clean1MB", func(b *testing.B) {
		b.SetBytes(int64(len(clean)))
		for b.Loop() {
			all.String(clean)
		}
	})
}
