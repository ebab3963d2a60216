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

// IsZero reports whether no tokens and no calls are recorded.
func (u TokenUsage) IsZero() bool {
	return u.InputTokens == 0 && u.CacheCreationTokens == 0 && u.CacheReadTokens == 0 &&
		u.OutputTokens == 0 && u.APICallCount == 0 && u.SubagentTokens == nil
}
