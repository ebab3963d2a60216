package gemini

import (
	"encoding/json"

	"github.com/entirerec/entire/events/agent"
)

// SkipRecords is a whole chat file held in memory without its first n records, in its layout:
// a legacy document without its first n messages (a position in it counts messages), written
// compactly as {"messages":[…]} on one line, which is how Entire's checkpoint reader merges
// one too; JSONL without its first n lines. A document that is not valid JSON has no messages
// to keep (nil), unless n is 0.
func SkipRecords(data []byte, n int) []byte {
	if n <= 0 {
		return data
	}
	if detectBytes(data) != formatDocument {
		return agent.SkipLines(data, n)
	}
	var doc struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil
	}
	doc.Messages = doc.Messages[min(n, len(doc.Messages)):]
	if doc.Messages == nil {
		doc.Messages = []json.RawMessage{}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil
	}
	return out
}
