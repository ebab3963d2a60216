package claudecode

import (
	"testing"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/agent/agenttest"
)

func TestSessionFormatsGolden(t *testing.T) {
	data := readSession(t)
	turn := ScanBytes(data[agenttest.LineOffset(t, data, 16):])
	full := ScanBytes(data)
	prompt := agent.PromptsText(turn.Prompts)
	subject := agent.CommitSubject(turn.Prompts[len(turn.Prompts)-1])
	agenttest.Golden(t, "turn2.prompt.txt", []byte(prompt), *update)
	agenttest.Golden(t, "turn2.summary.txt", []byte(turn.LastAssistant), *update)
	agenttest.Golden(t, "turn2.context.md", []byte(agent.ShadowContext("5b2c9d1e-8f4a-4c3b-9e7d-1a2b3c4d5e6f", subject, prompt, turn.LastAssistant, turn.Actions)), *update)
	agenttest.Golden(t, "committed.prompt.txt", []byte(agent.PromptsText(full.Prompts)), *update)
	agenttest.Golden(t, "committed.context.md", []byte(agent.CommittedContext(full.Prompts)), *update)
	if subject != "Thanks — one more: add a CHANGELOG entry." {
		t.Errorf("turn 2 subject = %q", subject)
	}
	if got := agent.CommitSubject(full.Prompts[1]); got != "Update the README and the analysis notebook too" {
		t.Errorf("subject of prompt 2 = %q", got)
	}
}

func TestStripTags(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"  padded \n", "padded"},
		{"<ide_opened_file>The user opened /a.go</ide_opened_file>\n\nfix it", "fix it"},
		{"<ide_selection>x</ide_selection>a<ide_diagnostics>y</ide_diagnostics>b", "ab"},
		{"<system-reminder>\nremember\n</system-reminder>\nhello", "hello"},
		{"a<local-command-caveat>Caveat</local-command-caveat>b", "ab"},
		{"<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>", ""},
		{"<local-command-stdout>out</local-command-stdout>", ""},
		{`<system-reminder priority="high">x</system-reminder>y`, "y"},
		{"keep <b>bold</b> and <ide_>x</ide_>", "keep <b>bold</b> and <ide_>x</ide_>"},
		{"<system-reminder>never closed", "<system-reminder>never closed"},
		{"<system-reminder>a</command-name>b", "<system-reminder>a</command-name>b"},
		{"<system-reminder>a<system-reminder>b</system-reminder>c", "c"}, // first closing tag ends the block
		{"<ide_a>x</ide_b>y", "<ide_a>x</ide_b>y"},                       // names must match
		{"x<system-reminderfoo>y</system-reminderfoo>", "x<system-reminderfoo>y</system-reminderfoo>"},
		{"<system-reminder <x>y</system-reminder>", "<system-reminder <x>y</system-reminder>"},
		{"1 < 2 and <", "1 < 2 and <"},
		{"<command-args>a</command-args><command-args>b", "<command-args>b"},
	}
	for _, tt := range tests {
		if got := StripTags(tt.in); got != tt.want {
			t.Errorf("StripTags(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
