package redact

import (
	"encoding/base64"
	"strings"
	"testing"
)

// secretCase is a fake credential in a realistic text. Cases with a line are transcript
// lines (the text is inserted JSON-escaped) and go through JSONL, the others through String.
type secretCase struct {
	name   string
	line   string // transcript line holding the text at {S}; "" for plain mode
	text   string // the text holding the secret at {S}
	secret string
}

// Transcript line templates.
const (
	bashLine   = `{"type":"assistant","uuid":"5d1c8f2e-0b7a-4c1e-9f3a-2e6d8b4a1c07","message":{"id":"msg_01XyZ","role":"assistant","content":[{"type":"tool_use","id":"toolu_01AbC","name":"Bash","input":{"command":"{S}","description":"Run it"}}]}}`
	resultLine = `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01AbC","type":"tool_result","content":"{S}"}]},"uuid":"a1b2c3d4-e5f6-4a5b-8c7d-9e0f1a2b3c4d"}`
	promptLine = `{"type":"user","message":{"role":"user","content":"{S}"},"timestamp":"2025-11-03T10:15:42.123Z"}`
	writeLine  = `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_02","name":"Write","input":{"file_path":"/repo/app/config.py","content":"{S}"}}]}}`
)

func secretCorpus() []secretCase {
	const toolInput = `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_03","name":"mcp__db__connect","input":{"host":"db","password":"{S}"}}]}}`
	const tornLine = `{"type":"user","message":{"content":"{S}`
	const textBlock = `{"type":"user","message":{"content":[{"type":"text","text":"{S}"}]}}`
	return []secretCase{
		{"aws key id in bash", bashLine, "aws configure set aws_access_key_id {S}", cat("AK", "IA", rnd(upalnum, 16))},
		{"aws secret in .env result", resultLine, "AWS_REGION=eu-west-1\nAWS_SECRET_ACCESS_KEY={S}\nLOG_LEVEL=debug\n", rnd(b64, 40)},
		{"aws credentials file", "", "[default]\naws_access_key_id = {S}\nregion = us-east-1\n", cat("AS", "IA", rnd(upalnum, 16))},
		{"aws secret assignment", "", "[prod]\naws_secret_access_key = {S}\n", rnd(b64, 40)},
		{"github pat in remote url", bashLine, "git remote set-url origin https://x-access-token:{S}@github.com/acme/api.git", cat("gh", "p_", rnd(alnum, 36))},
		{"github oauth in prompt", promptLine, "my token is {S} please use it for the API calls", cat("gh", "o_", rnd(alnum, 36))},
		{"github user token in result", resultLine, "{\"token\": \"{S}\", \"expires_at\": \"2025-12-01\"}", cat("gh", "u_", rnd(alnum, 36))},
		{"github app token in CI log", "", "2025-11-03T10:15:42Z GITHUB_TOKEN={S} set for step", cat("gh", "s_", rnd(alnum, 36))},
		{"github refresh token", "", "refresh: {S}\n", cat("gh", "r_", rnd(alnum, 36))},
		{"github fine-grained pat in .env", resultLine, "GH_TOKEN={S}\nGH_REPO=acme/api\n", cat("github", "_pat_", rnd(alnum, 22), "_", rnd(alnum, 59))},
		{"gitlab pat in remote url", "", "git clone https://oauth2:{S}@gitlab.com/acme/infra.git", cat("gl", "pat-", rnd(b64url, 20))},
		{"slack bot token in written code", writeLine, "import slack\n\nclient = slack.WebClient(token=\"{S}\")\n", cat("xo", "xb-", "2401", "-", "8823190", "-", rnd(alnum, 24))},
		{"slack user token in prompt", "", "use {S} for the slack export", cat("xo", "xp-", "1234567890-", "9876543210-", rnd(hexLow, 32))},
		{"slack webhook", "", "curl -X POST -d '{\"text\":\"deploy done\"}' https://hooks.slack.com/services/{S}", cat("T0", rnd(upalnum, 8), "/B0", rnd(upalnum, 8), "/", rnd(alnum, 24))},
		{"stripe live key in .env result", resultLine, "STRIPE_KEY={S}\nDEBUG=false\n", cat("sk", "_live_", rnd(alnum, 24))},
		{"stripe restricted key in curl", "", "curl https://api.stripe.com/v1/charges -u {S}:", cat("rk", "_live_", rnd(alnum, 24))},
		{"stripe webhook secret", "", "STRIPE_WEBHOOK_SECRET={S}", cat("wh", "sec_", rnd(alnum, 32))},
		{"openai legacy key in prompt", "", "here is my openai key {S} can you wire it up", cat("sk", "-", rnd(alnum, 20), "T3Blbk", "FJ", rnd(alnum, 20))},
		{"openai project key export", bashLine, "export OPENAI_API_KEY={S}", cat("sk", "-proj-", rnd(b64url, 80))},
		{"anthropic key in .env result", resultLine, "ANTHROPIC_API_KEY={S}\n", cat("sk", "-ant-", "api03-", rnd(b64url, 93), "AA")},
		{"anthropic key in curl header", "", "curl https://api.anthropic.com/v1/messages -H \"x-api-key: {S}\" -H \"content-type: application/json\"", cat("sk", "-ant-", "api03-", rnd(b64url, 93), "AA")},
		{"google api key in js", writeLine, "const firebaseConfig = {\n  apiKey: \"{S}\",\n  authDomain: \"acme.firebaseapp.com\",\n};\n", cat("AI", "za", rnd(b64url, 35))},
		{"rsa pem inside json string", resultLine, "{S}", fakePEM("RSA ", 6)},
		{"openssh key in prompt", "", "my deploy key:\n{S}\nadd it to the server", fakePEM("OPENSSH ", 5)},
		{"pem in torn non-json line", tornLine, "{S}", fakePEM("EC ", 3)},
		{"jwt in curl bearer", "", "curl -H 'Authorization: Bearer {S}' https://api.acme.io/v2/me", fakeJWT(`{"sub":"1234567890","name":"Alice","iat":1516239022}`)},
		{"jwt in json response", resultLine, `{"access_token":"{S}","expires_in":3600}`, fakeJWT(`{"sub":"42","scope":"admin"}`)},
		{"hex bearer token in bash", bashLine, "curl -sS -H \"Authorization: Bearer {S}\" https://api.acme.io/v1/jobs", rnd(hexLow, 32)},
		{"basic auth header", "", "GET /admin HTTP/1.1\nHost: acme.io\nAuthorization: Basic {S}\n", base64.StdEncoding.EncodeToString([]byte("admin:hunter2"))},
		{"postgres url password", "", "DATABASE_URL=postgres://app:{S}@db.internal:5432/app?sslmode=disable", "Tr0ub4dor&3x"},
		{"git remote with password", bashLine, "git push https://alice:{S}@git.acme.io/team/repo.git main", "s3cretPassw0rd"},
		{"sqlserver connection string", "", "Server=tcp:db.acme.io,1433;Database=app;User Id=sa;Password={S};Encrypt=true", "CorrectHorseBattery"},
		{"odbc pwd in written code", writeLine, "conn = pyodbc.connect('Driver={ODBC Driver 18};Server=db;Uid=admin;Pwd={S};')\n", "winterfell"},
		{"api key hex in .env", "", "NODE_ENV=production\nAPI_KEY={S}\nPORT=8080\n", rnd(hexLow, 20)},
		{"yaml password in result", resultLine, "database:\n  host: db.internal\n  user: app\n  password: {S}\n", "hunter2hunter2"},
		{"django secret key", "", "SECRET_KEY = '{S}'\nDEBUG = False\n", "django-insecure-8x#k2!m@q7"},
		{"token inside json text", resultLine, `{"user":"bob","token":"{S}"}`, "a1b2c3d4e5f6a7b8c9d0"},
		{"password json key in tool input", toolInput, "{S}", "Winter2024!"},
		{"npmrc auth token", "", "//registry.npmjs.org/:_authToken={S}\n", cat("np", "m_", rnd(alnum, 36))},
		{"twilio api key", "", "client = Client('{S}', api_secret, account_sid)", cat("S", "K", rnd(hexLow, 32))},
		{"twilio auth token", "", "TWILIO_AUTH_TOKEN={S}\n", rnd(hexLow, 32)},
		{"sendgrid key in bash", bashLine, "export SENDGRID_API_KEY={S}", cat("S", "G.", rnd(b64url, 22), ".", rnd(b64url, 43))},
		{"curl -u password", bashLine, "curl -u deploy:{S} https://ci.acme.io/api/json", "Pa55w0rd!"},
		{"huggingface token", "", "huggingface-cli login --token {S}", cat("h", "f_", rnd(alnum, 34))},
		{"google oauth client secret", "", "client_secret: {S}", cat("GOC", "SPX-", rnd(b64url, 28))},
		{"x-api-key header hex", "", "curl -H 'X-Api-Key: {S}' https://api.acme.io", rnd(hexLow, 32)},
		{"db_passwd assignment", "", "db_passwd={S}\n", "Qw3rty!9"},
		{"password repeated bare", "", "export DB_PASSWORD={S}\nmysql -uroot -p{S} app < dump.sql\n", "Zx9!pLm2q#Vt"},
		{"password repeated in json line", bashLine, "export DB_PASSWORD={S} && psql -W {S}", "Lm2q#Vt9!pZx"},
		{"unknown random secret in prompt", promptLine, "the signing key for staging is {S}, keep it safe", rnd(b64, 44)},
		{"pem in text block", textBlock, "{S}", fakePEM("", 4)},
		{"pypi token in .pypirc", "", "[pypi]\nusername = __token__\npassword = {S}\n", cat("py", "pi-", "AgEIcHlwaS5vcmc", rnd(b64url, 60))},
		{"google oauth access token", bashLine, "curl -H 'Authorization: Bearer {S}' https://www.googleapis.com/drive/v3/files", cat("ya", "29.", rnd(b64url, 60))},
		{"slack app token", "", "SLACK_APP_TOKEN={S}", cat("xa", "pp-1-", "A0", rnd(upalnum, 9), "-", "1234567890123-", rnd(hexLow, 64))},
	}
}

// render builds the input of a case.
func (c secretCase) render() string {
	text := strings.ReplaceAll(c.text, "{S}", c.secret)
	if c.line == "" {
		return text
	}
	return strings.ReplaceAll(c.line, "{S}", jsonText(text))
}

// leaks lists the parts of the secret that survive in out: the secret itself (also
// JSON-escaped) and each of its lines of 12 bytes or more.
func (c secretCase) leaks(out string) []string {
	var leaks []string
	probes := append([]string{c.secret, jsonText(c.secret)}, strings.Split(c.secret, "\n")...)
	for _, p := range probes {
		if len(p) >= 6 && strings.Contains(out, p) && !strings.HasPrefix(p, "-----") {
			leaks = append(leaks, p)
		}
	}
	return leaks
}

func (c secretCase) redact() string {
	if c.line != "" {
		return string(JSONL([]byte(c.render())))
	}
	return String(c.render())
}

func TestSecretCorpus(t *testing.T) {
	cases := secretCorpus()
	if len(cases) < 40 {
		t.Fatalf("secret corpus has %d cases, want at least 40", len(cases))
	}
	for _, c := range cases {
		out := c.redact()
		if !strings.Contains(out, Replacement) {
			t.Errorf("%s: nothing redacted in\n%s", c.name, out)
		}
		if l := c.leaks(out); len(l) > 0 {
			t.Errorf("%s: secret survives %q in\n%s", c.name, l, out)
		}
	}
}

// TestShapeRulesAlone checks that each credential shape is found by its own rule, not only
// by the entropy detector: rules and PEM blocks alone must remove the secret from the
// plain text. The two cases listed are caught by other means by design.
func TestShapeRulesAlone(t *testing.T) {
	byOtherMeans := map[string]bool{
		"unknown random secret in prompt": true, // entropy only
		"password json key in tool input": true, // JSON key context
	}
	for _, c := range secretCorpus() {
		if byOtherMeans[c.name] {
			continue
		}
		out, _ := redactor{}.text(strings.ReplaceAll(c.text, "{S}", c.secret))
		if l := c.leaks(out); len(l) > 0 {
			t.Errorf("%s: shape rules leave %q in\n%s", c.name, l, out)
		}
	}
}

// TestEveryRuleFires checks that no rule is dead: each one, run alone, finds a secret in
// at least one corpus case.
func TestEveryRuleFires(t *testing.T) {
	cases := secretCorpus()
	for i := range rules {
		r := &rules[i]
		fired := false
		for _, c := range cases {
			text := strings.ReplaceAll(c.text, "{S}", c.secret)
			for _, kw := range r.keywords {
				for p := 0; p < len(text) && !fired; p++ {
					if hasKeyword(text[p:], kw, r.fold) {
						_, _, fired = r.matchAt(text, p)
					}
				}
			}
		}
		if !fired {
			t.Errorf("rule %s finds nothing in the secret corpus", r.name)
		}
	}
}

// TestOnlyTheSecretIsReplaced pins the exact output of the context rules: the name, the
// user, the host and the quotes stay; only the secret becomes REDACTED.
func TestOnlyTheSecretIsReplaced(t *testing.T) {
	gh := cat("gh", "p_", rnd(alnum, 36))
	pem := fakePEM("RSA ", 2)
	tests := []struct{ in, want string }{
		{"git clone https://x-access-token:" + gh + "@github.com/acme/api.git",
			"git clone https://x-access-token:REDACTED@github.com/acme/api.git"},
		{"postgres://app:Tr0ub4dor&3x@db:5432/app", "postgres://app:REDACTED@db:5432/app"},
		{"DB_PASSWORD='hunter2hunter2' make", "DB_PASSWORD='REDACTED' make"},
		{`{"api_key": "a1b2c3d4e5f6", "user": "bob"}`, `{"api_key": "REDACTED", "user": "bob"}`},
		{"Server=db;User Id=sa;Password=CorrectHorse;", "Server=db;User Id=sa;Password=REDACTED;"},
		{"curl -u deploy:Pa55w0rd! https://ci", "curl -u deploy:REDACTED https://ci"},
		{"Authorization: Basic YWRtaW46aHVudGVy", "Authorization: Basic REDACTED"},
		{"-H 'Authorization: Bearer 0123456789abcdef0123'", "-H 'Authorization: Bearer REDACTED'"},
		{"key:\n" + pem + "\nend", "key:\nREDACTED\nend"},
		{"cfg = {token: " + gh + "}", "cfg = {token: REDACTED}"},
	}
	for _, tt := range tests {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}
