package events

// TokenUsage is the token accounting of spec §12.3, in the reference's JSON shape.
type TokenUsage struct {
	InputTokens         int         `json:"input_tokens"`
	CacheCreationTokens int         `json:"cache_creation_tokens"`
	CacheReadTokens     int         `json:"cache_read_tokens"`
	OutputTokens        int         `json:"output_tokens"`
	APICallCount        int         `json:"api_call_count"`
	SubagentTokens      *TokenUsage `json:"subagent_tokens,omitempty"`
}

// OpenCall is the last API response a checkpoint's usage counted (an agent may write one
// response over several lines, and a commit may land between them), with the usage row it
// counted for it, so that the next checkpoint counts only what the response's later lines add.
type OpenCall struct {
	ID    string     `json:"id"`
	Usage TokenUsage `json:"usage"`
}

// Add returns the field-wise sum of u and o. Subagent tokens are summed when either side has them.
func (u TokenUsage) Add(o TokenUsage) TokenUsage {
	sum := TokenUsage{
		InputTokens:         u.InputTokens + o.InputTokens,
		CacheCreationTokens: u.CacheCreationTokens + o.CacheCreationTokens,
		CacheReadTokens:     u.CacheReadTokens + o.CacheReadTokens,
		OutputTokens:        u.OutputTokens + o.OutputTokens,
		APICallCount:        u.APICallCount + o.APICallCount,
	}
	if u.SubagentTokens != nil || o.SubagentTokens != nil {
		var a, b TokenUsage
		if u.SubagentTokens != nil {
			a = *u.SubagentTokens
		}
		if o.SubagentTokens != nil {
			b = *o.SubagentTokens
		}
		s := a.Add(b)
		sum.SubagentTokens = &s
	}
	return sum
}

// Sub returns u less o, field by field, each floored at 0: what a range adds when u counts it
// and o counts only what lies before it. Subagent tokens are subtracted likewise, and left out
// when nothing of them remains.
func (u TokenUsage) Sub(o TokenUsage) TokenUsage {
	diff := TokenUsage{
		InputTokens:         max(0, u.InputTokens-o.InputTokens),
		CacheCreationTokens: max(0, u.CacheCreationTokens-o.CacheCreationTokens),
		CacheReadTokens:     max(0, u.CacheReadTokens-o.CacheReadTokens),
		OutputTokens:        max(0, u.OutputTokens-o.OutputTokens),
		APICallCount:        max(0, u.APICallCount-o.APICallCount),
	}
	if u.SubagentTokens != nil {
		var b TokenUsage
		if o.SubagentTokens != nil {
			b = *o.SubagentTokens
		}
		if s := u.SubagentTokens.Sub(b); !s.IsZero() {
			diff.SubagentTokens = &s
		}
	}
	return diff
}

// IsZero reports whether no tokens and no calls are recorded.
func (u TokenUsage) IsZero() bool {
	return u.InputTokens == 0 && u.CacheCreationTokens == 0 && u.CacheReadTokens == 0 &&
		u.OutputTokens == 0 && u.APICallCount == 0 && u.SubagentTokens == nil
}
