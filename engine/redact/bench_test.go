package redact

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
)

// benchTranscript builds about size bytes of Claude-style JSONL: prompts, assistant text
// with thinking signatures, Bash tool calls, tool results with source files and command
// output, an occasional screenshot, and a secret in about one line in twelve.
func benchTranscript(size int) []byte {
	code := strings.Repeat("func (e *Engine) condense(ctx context.Context, st *SessionState) error {\n"+
		"\ttree, err := e.git.WriteTree(ctx, st.ShadowIndex)\n\tif err != nil {\n"+
		"\t\treturn fmt.Errorf(\"write shadow tree: %w\", err)\n\t}\n\treturn nil\n}\n\n", 20)
	shot := base64.StdEncoding.EncodeToString([]byte(rnd(alnum, 30000)))
	secrets := []string{}
	for _, c := range secretCorpus() {
		secrets = append(secrets, c.render())
	}
	var b bytes.Buffer
	for i := 0; b.Len() < size; i++ {
		uuid := fmt.Sprintf("c010174c-a7cd-4bcc-b7d4-%012x", i)
		switch i % 10 {
		case 0:
			fmt.Fprintf(&b, `{"type":"user","uuid":%q,"timestamp":"2025-11-03T10:15:42.123Z","message":{"role":"user","content":"Please refactor the condensation step so token usage starts at the checkpoint offset, then run the tests."}}`+"\n", uuid)
		case 1:
			fmt.Fprintf(&b, `{"type":"assistant","uuid":%q,"message":{"id":"msg_01%d","content":[{"type":"thinking","thinking":"I should read engine/condense.go first and check how offsets are stored.","signature":%q}],"usage":{"input_tokens":45,"output_tokens":1312}}}`+"\n", uuid, i, rnd(b64, 400))
		case 2, 5:
			fmt.Fprintf(&b, `{"type":"assistant","uuid":%q,"message":{"content":[{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"go test ./engine/... -run TestCondense -count=1 2>&1 | tail -20","description":"Run tests"}}]}}`+"\n", uuid, i)
		case 3, 6, 8:
			fmt.Fprintf(&b, `{"type":"user","uuid":%q,"message":{"content":[{"tool_use_id":"toolu_%d","type":"tool_result","content":%q}]}}`+"\n", uuid, i, code)
		case 4:
			fmt.Fprintf(&b, `{"type":"assistant","uuid":%q,"message":{"content":[{"type":"text","text":"The failure comes from carry-forward: files committed mid-turn were dropped from files_touched. I fixed it in engine/carry.go and added a table test."}]}}`+"\n", uuid)
		case 7:
			if i%70 == 7 {
				fmt.Fprintf(&b, `{"type":"user","uuid":%q,"message":{"content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":%q}}]}}`+"\n", uuid, shot)
			} else {
				b.WriteString(secrets[i%len(secrets)] + "\n")
			}
		default:
			fmt.Fprintf(&b, `{"type":"user","uuid":%q,"message":{"content":[{"tool_use_id":"toolu_%d","type":"tool_result","content":"ok  \tgithub.com/entirerec/entire/engine\t0.412s\n--- PASS: TestCondenseComputesTokenUsage (0.01s)\nPASS"}]}}`+"\n", uuid, i)
		}
	}
	return b.Bytes()
}

func BenchmarkJSONL(b *testing.B) {
	data := benchTranscript(20 << 20)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		JSONL(data)
	}
}

func BenchmarkString(b *testing.B) {
	data := string(benchTranscript(4 << 20))
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		String(data)
	}
}

// BenchmarkDenseKeywords measures texts packed with keywords and near-miss candidates,
// the worst case for the keyword-anchored rules; throughput must stay flat as they grow.
func BenchmarkDenseKeywords(b *testing.B) {
	inputs := map[string]string{
		"sk":        strings.Repeat("sk-", 1<<18),
		"password=": strings.Repeat("password=", 1<<17),
		"jwt-head":  strings.Repeat("eyJ", 1<<18),
		"bearer":    strings.Repeat("bearer ", 1<<17),
		"url":       strings.Repeat("x://u:", 1<<17),
		"pem":       strings.Repeat("-----BEGIN RSA PRIVATE KEY----- -----END CERT-----", 1<<14),
		"conn":      strings.Repeat(";pwd=abcd", 1<<17),
	}
	for name, s := range inputs {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				String(s)
			}
		})
	}
}
