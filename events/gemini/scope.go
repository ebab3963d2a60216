package gemini

import (
	"bytes"
	"encoding/json"

	"github.com/tidwall/gjson"

	"github.com/entirerec/entire/events/agent"
	"github.com/entirerec/entire/events/jsonvalid"
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

// ScanRecords scans a chat file held in memory one message at a time, in the conversation's
// order: each Scan holds one message's prompt, or its tool calls, text and usage. A legacy
// document (pretty-printed as Gemini CLI writes it, or compact as Entire's reader merges its
// chunks) is read message by message; JSONL as ScanBytes reads it, each message as its last
// record says, in its first record's place, without the messages a "$rewindTo" dropped (a
// final line without '\n' is left out). ok is false for a document that is not valid JSON.
func ScanRecords(data []byte) ([]agent.Scan, bool) {
	var list []message
	if detectBytes(data) == formatDocument {
		if !jsonvalid.Valid(data) {
			return nil, false
		}
		msgs := gjson.ParseBytes(data).Get("messages")
		if !msgs.IsArray() {
			return nil, false
		}
		msgs.ForEach(func(_, m gjson.Result) bool {
			list = append(list, readMessage(m))
			return true
		})
	} else {
		sc := newLineScanner(0)
		for {
			line, rest, found := bytes.Cut(data, []byte{'\n'})
			if !found {
				break
			}
			sc.consume(line)
			data = rest
		}
		list = sc.messages()
	}
	scans := make([]agent.Scan, 0, len(list))
	for _, m := range list {
		var s agent.Scan
		collect(&s, []message{m})
		scans = append(scans, s)
	}
	return scans, true
}
