package redact

import "strings"

// Vendor token formats: a literal prefix followed by a body of a fixed
// character set and length. Matching is anchored at a word start; the token
// must end at a word boundary (and not continue as "….png"-style dotted
// names), and the body must not be a placeholder such as "xxxx…" or "XXXX…".

type charset [256]bool

func newSet(spec string) *charset {
	var cs charset
	for i := 0; i < len(spec); i++ {
		if i+2 < len(spec) && spec[i+1] == '-' {
			for c := spec[i]; c <= spec[i+2]; c++ {
				cs[c] = true
			}
			i += 2
			continue
		}
		cs[spec[i]] = true
	}
	return &cs
}

var (
	setAN     = newSet("A-Za-z0-9")
	setANU    = newSet("A-Za-z0-9_")
	setAND    = newSet("A-Za-z0-9_-")
	setANDash = newSet("A-Za-z0-9-")
	setUD     = newSet("A-Z0-9")
	setUDD    = newSet("A-Z0-9-")
	setHexL   = newSet("a-f0-9")
	setHex    = newSet("a-fA-F0-9")
	setHexLD  = newSet("a-f0-9-")
	setLD     = newSet("a-z0-9")
	setAlpha  = newSet("A-Za-z")
	setB64    = newSet("A-Za-z0-9+/")
	setB64X   = newSet("A-Za-z0-9+/=_-")
	setATL    = newSet("A-Za-z0-9_=-")
	setSG     = newSet("A-Za-z0-9_.-")
	setBech   = newSet("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")
	setLDDash = newSet("a-z0-9-")
	setFly    = newSet("A-Za-z0-9+/=,_")
	setPS     = newSet("A-Za-z0-9_=.-") // PlanetScale's bodies, '=' and '.' too
	setTwB    = newSet("A-Za-z0-9%_-")  // a Twitter bearer token, URL-encoded ("%2B", "%3D")
)

const (
	fNoPH      uint8 = 1 << iota // skip the placeholder check
	fDigit                       // body needs a digit
	fMixed                       // body needs a letter and a digit
	fNotDigits                   // body must not be all digits
	fPad                         // up to 3 trailing '=' allowed
	fUUID                        // body is a UUID layout (8-4-4-4-12 hex-like groups)
	fShape                       // body has a vendor-specific layout, checked by shapeOK
	fRoutable                    // may end in GitLab's routing suffix: "." + 2 + 7 of [0-9a-z]
)

type vrule struct {
	prefix   string
	set      *charset
	min, max int
	typ      uint8
	flags    uint8
}

var vendorRules = []vrule{
	// AWS access key IDs
	{"AKIA", setUD, 16, 16, tAPIKey, 0},
	{"ASIA", setUD, 16, 16, tAPIKey, 0},
	{"ABIA", setUD, 16, 16, tAPIKey, 0},
	{"ACCA", setUD, 16, 16, tAPIKey, 0},
	{"A3T", setUD, 17, 17, tAPIKey, 0},
	// AWS Bedrock API keys
	{"ABSK", setB64, 100, 300, tAPIKey, fPad},
	{"bedrock-api-key-", setB64, 16, 400, tAPIKey, fPad},
	// Google
	{"AIza", setAND, 35, 35, tAPIKey, 0},
	// Gemini API authorization keys, which AI Studio issues since 2026
	// instead of AIza… keys: "AQ." and a base64url body (50 characters in
	// the keys seen; a range keeps longer ones)
	{"AQ.", setAND, 40, 120, tAPIKey, fMixed},
	{"ya29.", setAND, 30, 400, tAPIKey, 0},
	{"GOCSPX-", setAND, 28, 28, tSecret, 0},
	// GitHub
	{"ghp_", setAN, 36, 36, tAPIKey, 0},
	{"gho_", setAN, 36, 36, tAPIKey, 0},
	{"ghu_", setAN, 36, 36, tAPIKey, 0},
	{"ghs_", setAN, 36, 36, tAPIKey, 0},
	{"ghr_", setAN, 36, 36, tAPIKey, 0},
	{"github_pat_", setANU, 60, 100, tAPIKey, 0},
	// GitLab
	// (routable tokens end in a routing suffix of [0-9a-z] after a dot and
	// carry up to 300 body characters: glpat-….0a1b2c3d4, glrt-t1_….01.…)
	{"glpat-", setAND, 20, 300, tAPIKey, fRoutable},
	{"glptt-", setAND, 40, 40, tAPIKey, 0}, // hex in GitLab's own, any token characters in others
	{"gldt-", setAND, 20, 300, tAPIKey, fRoutable},
	{"glrt-", setAND, 20, 300, tAPIKey, fRoutable},
	{"glsoat-", setAND, 20, 300, tAPIKey, fRoutable},
	{"glcbt-", setAND, 20, 300, tAPIKey, fRoutable},
	{"glimt-", setAND, 25, 300, tAPIKey, fRoutable},
	{"glffct-", setAND, 20, 300, tAPIKey, fRoutable},
	{"glagent-", setAND, 50, 300, tAPIKey, fRoutable},
	{"gloas-", setAND, 64, 300, tAPIKey, fRoutable},
	{"GR1348941", setAND, 20, 100, tAPIKey, 0},
	// Grafana
	{"glc_", setB64, 32, 400, tAPIKey, fPad},
	{"glsa_", setANU, 40, 45, tAPIKey, 0},
	{"eyJrIjoi", setB64, 50, 400, tAPIKey, fPad},
	// Slack
	{"xoxb-", setANDash, 10, 300, tAPIKey, fDigit},
	{"xoxp-", setANDash, 10, 300, tAPIKey, fDigit},
	{"xoxa-", setANDash, 10, 300, tAPIKey, fDigit},
	{"xoxr-", setANDash, 10, 300, tAPIKey, fDigit},
	{"xoxs-", setANDash, 10, 300, tAPIKey, fDigit},
	{"xoxo-", setANDash, 10, 300, tAPIKey, fDigit},
	{"xoxe.xoxb-", setANDash, 50, 400, tAPIKey, 0},
	{"xoxe.xoxp-", setANDash, 50, 400, tAPIKey, 0},
	{"xoxe-", setANDash, 50, 400, tAPIKey, 0},
	{"xapp-", setANDash, 30, 300, tAPIKey, fDigit},
	// Stripe
	{"sk_live_", setAN, 10, 250, tAPIKey, 0},
	{"sk_test_", setAN, 10, 250, tAPIKey, 0},
	{"rk_live_", setAN, 10, 250, tAPIKey, 0},
	{"rk_test_", setAN, 10, 250, tAPIKey, 0},
	{"pk_live_", setAN, 10, 250, tAPIKey, 0},
	{"whsec_", setAN, 24, 100, tSecret, 0},
	// OpenAI / Anthropic
	{"sk-ant-", setAND, 32, 300, tAPIKey, 0},
	{"sk-proj-", setAND, 32, 300, tAPIKey, 0},
	{"sk-svcacct-", setAND, 32, 300, tAPIKey, 0},
	{"sk-admin-", setAND, 32, 300, tAPIKey, 0},
	{"sk-", setAN, 32, 200, tAPIKey, fMixed},
	// other AI vendors
	{"pplx-", setAN, 40, 64, tAPIKey, 0},
	{"hf_", setAlpha, 34, 34, tAPIKey, 0},
	{"api_org_", setAlpha, 34, 34, tAPIKey, 0},
	{"r8_", setAN, 37, 40, tAPIKey, 0},
	{"gsk_", setAN, 52, 52, tAPIKey, 0},
	{"xai-", setAN, 70, 90, tAPIKey, 0},
	{"nvapi-", setAND, 60, 70, tAPIKey, 0},
	// Atlassian, Heroku, Clojars, Notion, Infracost, Octopus Deploy
	{"ATATT3", setATL, 150, 300, tAPIKey, 0},
	{"HRKU-", setAND, 30, 100, tAPIKey, 0},
	{"CLOJARS_", setLD, 60, 60, tAPIKey, 0},
	{"ntn_", setAN, 40, 50, tAPIKey, fNotDigits},
	{"ico-", setAN, 32, 32, tAPIKey, 0},
	{"API-", setUD, 26, 32, tAPIKey, fMixed},
	// Facebook / Square access tokens
	{"EAAA", setAND, 22, 60, tAPIKey, fMixed}, // Square access token
	{"EAA", setAND, 60, 400, tAPIKey, fMixed},
	{"sq0atp-", setAND, 22, 60, tAPIKey, 0},
	{"sq0csp-", setAND, 40, 60, tSecret, 0},
	// 1Password
	{"ops_eyJ", setB64, 200, 4000, tAPIKey, fPad},
	{"A3-", setUDD, 30, 45, tSecret, fDigit},
	// age
	{"AGE-SECRET-KEY-1", setBech, 58, 58, tSecret, fNoPH},
	// Sentry
	{"sntrys_eyJ", setB64X, 50, 600, tAPIKey, 0},
	{"sntryu_", setHexL, 64, 64, tAPIKey, 0},
	// OpenShift, 42 Intra, DigitalOcean, npm, SendGrid, Linear, Docker, PyPI, RubyGems, Shopify, ...
	{"sha256~", setAND, 43, 43, tAPIKey, 0},
	{"s-s4t2ud-", setHexL, 64, 64, tSecret, 0},
	{"s-s4t2af-", setHexL, 64, 64, tSecret, 0},
	{"dop_v1_", setHexL, 64, 64, tAPIKey, 0},
	{"doo_v1_", setHexL, 64, 64, tAPIKey, 0},
	{"dor_v1_", setHexL, 64, 64, tAPIKey, 0},
	{"npm_", setAN, 36, 36, tAPIKey, 0},
	{"SG.", setSG, 60, 80, tAPIKey, fMixed},
	{"lin_api_", setAN, 40, 40, tAPIKey, 0},
	{"dckr_pat_", setAND, 27, 60, tAPIKey, 0},
	{"pypi-AgEIcHlwaS5vcmc", setAND, 50, 300, tAPIKey, 0},
	{"pypi-AgENdGVzdC5weXBpLm9yZw", setAND, 50, 300, tAPIKey, 0}, // TestPyPI's macaroons
	{"rubygems_", setHexL, 48, 48, tAPIKey, 0},
	{"shpat_", setHex, 32, 32, tAPIKey, 0},
	{"shpca_", setHex, 32, 32, tAPIKey, 0},
	{"shppa_", setHex, 32, 32, tAPIKey, 0},
	{"shpss_", setHex, 32, 32, tSecret, 0},
	{"PMAK-", setANDash, 50, 70, tAPIKey, fMixed},
	{"xkeysib-", setANDash, 60, 90, tAPIKey, fMixed},
	{"xsmtpsib-", setANDash, 60, 90, tAPIKey, fMixed}, // Brevo (Sendinblue) SMTP key
	{"figd_", setAND, 40, 60, tAPIKey, 0},
	{"tskey-", setANDash, 20, 100, tAPIKey, fDigit},
	{"dapi", setHexL, 32, 32, tAPIKey, fMixed},
	{"LTAI", setAN, 20, 24, tAPIKey, fMixed},
	{"key-", setHexL, 32, 32, tAPIKey, fMixed},
	{"SK", setHexL, 32, 32, tAPIKey, fMixed},
	{"sl.", setAND, 130, 200, tAPIKey, 0},
	{"sl.u.", setAND, 130, 400, tAPIKey, 0},
	// more vendor prefixes (gitleaks rule set)
	{"p8e-", setAN, 32, 32, tSecret, fMixed},               // Adobe client secret
	{"4b1d", setAN, 38, 38, tSecret, fMixed},               // ClickHouse Cloud
	{"v1.0-", setHexLD, 150, 200, tAPIKey, 0},              // Cloudflare origin CA
	{"CFPAT-", setAND, 43, 43, tAPIKey, 0},                 // Contentful
	{"dnkey-", setATL, 40, 120, tAPIKey, 0},                // Defined Networking
	{"dp.pt.", setAN, 43, 43, tAPIKey, 0},                  // Doppler
	{"dp.st.", setAND, 43, 80, tAPIKey, 0},                 // Doppler service token
	{"duffel_test_", setAND, 43, 43, tAPIKey, 0},           // Duffel
	{"duffel_live_", setAND, 43, 43, tAPIKey, 0},           // Duffel
	{"dt0c01.", setSG, 89, 89, tAPIKey, 0},                 // Dynatrace
	{"EZAK", setAN, 54, 54, tAPIKey, 0},                    // EasyPost
	{"EZTK", setAN, 54, 54, tAPIKey, 0},                    // EasyPost test
	{"FLWSECK_TEST-", setAND, 32, 40, tSecret, 0},          // Flutterwave
	{"FLWSECK-", setAND, 32, 40, tSecret, 0},               // Flutterwave
	{"FLWPUBK_TEST-", setAND, 32, 40, tAPIKey, 0},          // Flutterwave
	{"fio-u-", setAND, 64, 64, tAPIKey, 0},                 // Frame.io
	{"pat.", setSG, 60, 80, tAPIKey, fMixed},               // Harness
	{"hvs.", setAND, 90, 200, tAPIKey, 0},                  // HashiCorp Vault service token
	{"hvb.", setAND, 130, 300, tAPIKey, 0},                 // HashiCorp Vault batch token
	{"AKCp", setAN, 60, 80, tAPIKey, 0},                    // JFrog
	{"AKC", setAN, 10, 100, tAPIKey, fMixed},               // Artifactory
	{"cmVmd", setAN, 59, 59, tAPIKey, fMixed},              // Artifactory reference token ("ref" in base64)
	{"ZXlK", setB64, 60, 4000, tAPIKey, fPad | fMixed},     // a JWT encoded again in base64 ("eyJ" in base64)
	{"pk.eyJ", setSG, 60, 300, tAPIKey, 0},                 // Mapbox
	{"sk.eyJ", setSG, 60, 300, tAPIKey, 0},                 // Mapbox
	{"NRAK-", setUD, 27, 27, tAPIKey, 0},                   // New Relic
	{"NRJS-", setHexL, 19, 19, tAPIKey, 0},                 // New Relic browser
	{"NRII-", setAND, 32, 32, tAPIKey, 0},                  // New Relic insert
	{"oy2", setLD, 43, 43, tAPIKey, fMixed},                // NuGet
	{"access-sandbox-", setHexLD, 36, 36, tAPIKey, 0},      // Plaid
	{"access-development-", setHexLD, 36, 36, tAPIKey, 0},  // Plaid
	{"access-production-", setHexLD, 36, 36, tAPIKey, 0},   // Plaid
	{"pscale_tkn_", setPS, 32, 64, tAPIKey, 0},             // PlanetScale
	{"pscale_pw_", setPS, 32, 64, tSecret, 0},              // PlanetScale
	{"pscale_oauth_", setPS, 32, 64, tAPIKey, 0},           // PlanetScale
	{"pnu_", setAN, 36, 36, tAPIKey, 0},                    // Prefect
	{"pul-", setHexL, 40, 40, tAPIKey, 0},                  // Pulumi
	{"rdme_", setAN, 70, 70, tAPIKey, 0},                   // Readme
	{"tk-us-", setAND, 48, 48, tAPIKey, 0},                 // Scalingo
	{"sm_pat_", setAN, 16, 16, tAPIKey, 0},                 // SettleMint
	{"sm_aat_", setAN, 16, 16, tAPIKey, 0},                 // SettleMint
	{"sm_sat_", setAN, 16, 16, tAPIKey, 0},                 // SettleMint
	{"shippo_live_", setHexL, 40, 40, tAPIKey, 0},          // Shippo
	{"shippo_test_", setHexL, 40, 40, tAPIKey, 0},          // Shippo
	{"squ_", setHexL, 40, 40, tAPIKey, 0},                  // SonarQube
	{"sqp_", setHexL, 40, 40, tAPIKey, 0},                  // SonarQube
	{"sqa_", setHexL, 40, 40, tAPIKey, 0},                  // SonarQube
	{"sgp_", setANU, 40, 70, tAPIKey, fMixed},              // Sourcegraph
	{"tfp_", setAND, 59, 59, tAPIKey, 0},                   // Typeform
	{"AQVN", setAND, 35, 38, tAPIKey, 0},                   // Yandex
	{"AAAAAAAAAAAAAAAAAAAAA", setTwB, 40, 150, tAPIKey, 0}, // Twitter bearer
	{"AC", setLD, 32, 32, tAPIKey, fMixed},                 // Twilio account SID
	{"lsv2_pt_", setANU, 40, 60, tAPIKey, 0},               // LangSmith
	{"lsv2_sk_", setANU, 40, 60, tAPIKey, 0},               // LangSmith
	{"sk-or-v1-", setHexL, 64, 64, tAPIKey, 0},             // OpenRouter
	{"fo1_", setAND, 43, 43, tAPIKey, 0},                   // Fly.io
	// Fly.io macaroon tokens: "FlyV1 " is part of the token as flyctl prints
	// it; a token may be a comma-joined list of fm1a_/fm1r_/fm2_ parts
	{"FlyV1 fm2_", setFly, 100, 8000, tAPIKey, 0},
	{"FlyV1 fm1a_", setFly, 100, 8000, tAPIKey, 0},
	{"FlyV1 fm1r_", setFly, 100, 8000, tAPIKey, 0},
	{"fm2_", setFly, 100, 8000, tAPIKey, 0},
	{"fm1a_", setFly, 100, 8000, tAPIKey, 0},
	{"fm1r_", setFly, 100, 8000, tAPIKey, 0},
	{"sk_", setHexL, 48, 64, tAPIKey, 0}, // ElevenLabs and similar

	// Prefix conventions of the public detector lists (gitleaks rules,
	// trufflehog detectors) by category. Bodies are as wide as the
	// documented alphabets; the length bounds carry the distinctiveness.
	// infrastructure as code, deployment and cloud platforms
	{"hvr.", setAND, 80, 200, tAPIKey, 0},           // HashiCorp Vault recovery token
	{"dp.ct.", setAN, 40, 64, tAPIKey, fMixed},      // Doppler CLI token
	{"dp.sa.", setAN, 40, 64, tAPIKey, fMixed},      // Doppler service account
	{"dp.scim.", setAN, 40, 64, tAPIKey, fMixed},    // Doppler SCIM
	{"dp.audit.", setAN, 40, 64, tAPIKey, fMixed},   // Doppler audit
	{"sbp_", setAN, 40, 40, tAPIKey, fMixed},        // Supabase
	{"rnd_", setAN, 24, 48, tAPIKey, fMixed},        // Render
	{"nfp_", setAN, 36, 48, tAPIKey, fMixed},        // Netlify
	{"AKID", setAN, 32, 36, tAPIKey, fMixed},        // Tencent Cloud SecretId
	{"SCW", setUD, 17, 17, tAPIKey, fMixed},         // Scaleway access key
	{"bkua_", setLD, 40, 40, tAPIKey, fMixed},       // Buildkite
	{"CCIPAT_", setANU, 20, 80, tAPIKey, fMixed},    // CircleCI personal token
	{"CCIPRJ_", setANU, 20, 80, tAPIKey, fMixed},    // CircleCI project token
	{"rootly_", setHexL, 64, 64, tAPIKey, 0},        // Rootly
	{"phx_", setANU, 40, 50, tAPIKey, fMixed},       // PostHog personal key
	{"pcsk_", setANU, 60, 80, tAPIKey, fMixed},      // Pinecone
	{"dckr_oat_", setAND, 32, 32, tAPIKey, 0},       // Docker organisation token
	{"glft-", setAND, 20, 20, tAPIKey, fMixed},      // GitLab feed token
	{"BBDC-", setB64X, 40, 50, tAPIKey, fMixed},     // Bitbucket Data Center
	{"ATCTT3", setATL, 20, 300, tAPIKey, fMixed},    // Atlassian Confluence token
	{"ATBB", setAN, 28, 40, tAPIKey, fMixed},        // Bitbucket app password
	{"sqco_", setAN, 59, 59, tAPIKey, 0},            // Sourcegraph Cody
	{"slk_", setHexL, 64, 64, tAPIKey, 0},           // Sourcegraph
	{"spu-", setHexL, 32, 32, tAPIKey, fMixed},      // SpectralOps
	{"thog-key-", setHexL, 16, 16, tAPIKey, 0},      // TruffleHog Enterprise
	{"thog-secret-", setHexL, 32, 32, tSecret, 0},   // TruffleHog Enterprise
	{"apify_api_", setAND, 30, 40, tAPIKey, fMixed}, // Apify
	{"aio_", setAN, 28, 28, tAPIKey, fMixed},        // Adafruit IO
	{"pgar_", setAN, 20, 40, tAPIKey, 0},            // pganalyze
	{"NRBR-", setHexL, 19, 19, tAPIKey, 0},          // New Relic browser key
	{"NRIQ-", setAND, 25, 32, tAPIKey, 0},           // New Relic insights query key
	{"BBFF-", setAN, 30, 30, tAPIKey, fMixed},       // Ubidots
	{"nvapi-", setAND, 60, 70, tAPIKey, 0},          // NVIDIA
	{"salad_cloud_", setANU, 20, 250, tAPIKey, fMixed},
	{"secret_", setAN, 43, 43, tAPIKey, fMixed}, // Notion integration token (older layout)
	// payment, commerce and finance
	{"rzp_live_", setAN, 14, 14, tAPIKey, fMixed},                            // Razorpay
	{"rzp_test_", setAN, 14, 14, tAPIKey, fMixed},                            // Razorpay
	{"sk_prod_", setAN, 10, 250, tAPIKey, 0},                                 // Stripe-style
	{"rk_prod_", setAN, 10, 250, tAPIKey, 0},                                 // Stripe-style
	{"sk_pr_", setANU, 30, 80, tAPIKey, fMixed},                              // Photoroom
	{"pk_test_", setAN, 20, 250, tAPIKey, fMixed},                            // Stripe publishable (test)
	{"ak_live_", setAN, 30, 30, tAPIKey, fMixed},                             // Pagar.me
	{"ramp_id_", setAN, 40, 40, tAPIKey, fMixed},                             // Ramp
	{"ramp_sec_", setAN, 48, 48, tSecret, fMixed},                            // Ramp
	{"flb_live_", setAN, 20, 20, tAPIKey, fMixed},                            // Fleetbase
	{"shltm_", setAND, 40, 40, tAPIKey, fMixed},                              // Flexport
	{"sq0idp-", setAND, 22, 60, tAPIKey, 0},                                  // Square application ID
	{"sq0ige-", setAND, 22, 60, tAPIKey, 0},                                  // Square
	{"access_token$production$", newSet("a-z0-9$"), 40, 60, tAPIKey, fShape}, // Braintree / PayPal
	{"access_token$sandbox$", newSet("a-z0-9$"), 40, 60, tAPIKey, fShape},
	{"rh-api-", setHexLD, 36, 36, tAPIKey, fUUID}, // Robinhood
	// feature flags, messaging, observability
	{"api-", setLDDash, 36, 36, tAPIKey, fUUID},            // LaunchDarkly API access token
	{"sdk-", setLDDash, 36, 36, tAPIKey, fUUID},            // LaunchDarkly SDK key
	{"mob-", setLDDash, 36, 36, tAPIKey, fUUID},            // LaunchDarkly mobile key
	{"secret-", setAN, 43, 43, tSecret, fMixed},            // Statsig server secret
	{"pub-c-", setLDDash, 36, 36, tAPIKey, fUUID},          // PubNub publish key
	{"sub-c-", setLDDash, 36, 36, tAPIKey, fUUID},          // PubNub subscribe key
	{"pat-na1-", setANDash, 36, 36, tAPIKey, fUUID},        // HubSpot private app token
	{"pat-eu1-", setANDash, 36, 36, tAPIKey, fUUID},        // HubSpot private app token
	{"pat", newSet("A-Za-z0-9."), 79, 79, tAPIKey, fShape}, // Airtable personal access token
}

// shapeOK checks the layouts of fShape rules.
func shapeOK(prefix, body string) bool {
	switch prefix {
	case "pat": // 14 alphanumerics, '.', 64 hex digits
		return len(body) == 79 && body[14] == '.' && allClass(body[:14], cDigit|cUpper|cLower) && isLowerHex(body[15:])
	default: // Braintree access_token$env$merchant$hex
		k := strings.IndexByte(body, '$')
		return k >= 8 && k+33 == len(body) && isLowerHex(body[k+1:])
	}
}

// uuidLayout reports an 8-4-4-4-12 layout of alphanumerics.
func uuidLayout(b string) bool {
	if len(b) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		if (i == 8 || i == 13 || i == 18 || i == 23) != (b[i] == '-') {
			return false
		}
	}
	return true
}

// vendorLists holds, for each pair of first bytes, the rules whose prefix
// starts with them, longest prefix first; vendorIndex maps the pair to its
// list (0 = none).
var vendorLists, vendorIndex = func() ([][]int, [256 * 256]uint16) {
	var idx [256 * 256]uint16
	lists := [][]int{nil}
	for i, r := range vendorRules {
		k := int(r.prefix[0])<<8 | int(r.prefix[1])
		if idx[k] == 0 {
			lists = append(lists, nil)
			idx[k] = uint16(len(lists) - 1)
		}
		lists[idx[k]] = append(lists[idx[k]], i)
	}
	for _, l := range lists {
		for a := 1; a < len(l); a++ {
			for b := a; b > 0 && len(vendorRules[l[b]].prefix) > len(vendorRules[l[b-1]].prefix); b-- {
				l[b], l[b-1] = l[b-1], l[b]
			}
		}
	}
	return lists, idx
}()

// matchVendor tries the vendor rules at i (a word start).
func matchVendor(s string, i int) (int, uint8, bool) {
	if i+1 >= len(s) {
		return 0, 0, false
	}
	rules := vendorLists[vendorIndex[int(s[i])<<8|int(s[i+1])]]
	if len(rules) == 0 {
		return 0, 0, false
	}
	if i >= 2 && (s[i-1] == '.' || s[i-1] == '-') && isAlnum(s[i-2]) {
		return 0, 0, false // "video_box.ico-…": inside a dotted or dashed name
	}
	for _, ri := range rules {
		r := &vendorRules[ri]
		if len(r.prefix) > 2 && (i+2 >= len(s) || s[i+2] != r.prefix[2]) {
			continue // the third byte rules most prefixes out before a comparison
		}
		if e, ok := r.matchAt(s, i); ok {
			return e, r.typ, true
		}
	}
	return 0, 0, false
}

// matchAt matches the rule's token at i: its prefix, a body of the rule's
// characters and length, the suffixes the rule allows, a right boundary,
// and a body that is not a placeholder and has the classes the rule asks.
func (r *vrule) matchAt(s string, i int) (int, bool) {
	if !strings.HasPrefix(s[i:], r.prefix) {
		return 0, false
	}
	b := i + len(r.prefix)
	e := b
	for e < len(s) && r.set[s[e]] && e-b <= r.max {
		e++
	}
	for e > b && s[e-1] == '.' {
		e-- // a full stop after the token, in a body that may hold dots
	}
	l := e - b
	if l < r.min || l > r.max {
		return 0, false
	}
	e = r.suffixEnd(s, e)
	if e < len(s) && (isWord(s[e]) || (s[e] == '.' || s[e] == '-') && e+1 < len(s) && isAlnum(s[e+1])) {
		return 0, false
	}
	return e, r.bodyOK(s[b : b+l])
}

// suffixEnd extends a body ending at e by the '=' padding (fPad) or the
// GitLab routing suffix (fRoutable) the rule allows.
func (r *vrule) suffixEnd(s string, e int) int {
	n := len(s)
	if r.flags&fPad != 0 {
		for k := 0; k < 3 && e < n && s[e] == '='; k++ {
			e++
		}
	}
	if r.flags&fRoutable != 0 {
		// ".0a1b2c3d4" (the rule sets' layout) or ".01.0a1b2c3d4" (as
		// self-managed instances print it)
		for k := 0; k < 2 && e+3 <= n && s[e] == '.'; k++ {
			g := spanClass(s, e+1, cDigit|cLower, 10) - e - 1
			if g < 2 || g > 9 {
				break
			}
			e += 1 + g
		}
	}
	return e
}

// bodyOK applies the rule's checks of the body: not a placeholder, the
// digits and letters it needs, its layout.
func (r *vrule) bodyOK(body string) bool {
	switch {
	case r.flags&fNoPH == 0 && placeholderBody(body):
		return false
	case r.flags&(fDigit|fMixed) != 0 && !strings.ContainsAny(body, "0123456789"):
		return false
	case r.flags&(fMixed|fNotDigits) != 0 && !hasLetter(body):
		return false
	case r.flags&fUUID != 0 && !uuidLayout(body):
		return false
	case r.flags&fShape != 0 && !shapeOK(r.prefix, body):
		return false
	}
	return true
}

func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if isAlpha(s[i]) {
			return true
		}
	}
	return false
}

// placeholderBody reports whether a token body is a placeholder: mostly
// x/X/*, at most two distinct characters, or a run of 5+ x/X/*.
func placeholderBody(body string) bool {
	if len(body) == 0 {
		return true
	}
	// the first two distinct bytes are kept; a third one only needs noting
	a, b := body[0], body[0]
	third := false
	xs := 0
	run, maxRun := 0, 0
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != a && c != b {
			if a == b {
				b = c
			} else {
				third = true
			}
		}
		if c == 'x' || c == 'X' || c == '*' {
			xs++
			run++
			if run > maxRun {
				maxRun = run
			}
		} else {
			run = 0
		}
	}
	if !third && len(body) >= 4 {
		return true
	}
	return xs*2 >= len(body) || maxRun >= 5 || sequenceBody(body)
}

// sequenceBody reports a fixture written by running through the alphabet:
// "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "0000…0000ABCDEFGHIJKLMNOPQRSTUVWXYZ".
// The labelling policy counts shorter patterns ("abcd1234abcd1234…",
// "1234567890abcdef…") as the secrets they stand in for, so only a long run
// counts: twenty steps in a row, or ten after a run of ten equal
// characters, and steps or repeats in seven of ten neighbouring pairs
// (outside '-', '_', '.'). Random tokens step in about one pair in thirty.
func sequenceBody(body string) bool {
	if len(body) < 16 {
		return false
	}
	pairs, steps := 0, 0
	asc, maxAsc, same, maxSame := 0, 0, 0, 0
	misses, maxMisses := 0, 3*len(body)/10 // a random body fails within its first third
	var prev byte
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c == '-' || c == '_' || c == '.' {
			continue
		}
		if prev != 0 {
			pairs++
			switch {
			case c == prev+1 || seqWrap(prev, c):
				steps++
				asc++
				same = 0
			case c == prev:
				steps++
				same++
				asc = 0
			default:
				asc, same = 0, 0
				if misses++; misses > maxMisses {
					return false
				}
			}
			maxAsc, maxSame = max(maxAsc, asc), max(maxSame, same)
		}
		prev = c
	}
	return (maxAsc >= 20 || maxAsc >= 10 && maxSame >= 10) && steps*10 >= pairs*7
}

// seqWrap is a step across the ends of the digit and letter runs: 9→0,
// 9→a, 0→a (…7890abc…), z→0, Z→0.
func seqWrap(a, b byte) bool {
	return (a == '9' || a == '0') && (b == '0' || b == 'a' || b == 'A') || (a == 'z' || a == 'Z') && (b == '0' || b == '1')
}

// truncatedVendor reports a value that starts with a distinctive vendor
// prefix (five characters or more, "xoxb-") but whose body is too short for
// the vendor's format: a fixture such as "xoxb-123456", not a token.
func truncatedVendor(v string) bool {
	if len(v) < 2 {
		return false
	}
	for _, ri := range vendorLists[vendorIndex[int(v[0])<<8|int(v[1])]] {
		r := &vendorRules[ri]
		if len(r.prefix) < 5 || !strings.HasPrefix(v, r.prefix) {
			continue
		}
		body := v[len(r.prefix):]
		for k := 0; k < len(body); k++ {
			if !r.set[body[k]] {
				return false
			}
		}
		return len(body) < r.min
	}
	return false
}
