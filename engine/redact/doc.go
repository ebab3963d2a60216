// Package redact replaces secrets with the word REDACTED before text reaches the shared
// checkpoint branch (spec §12.1).
//
// Two detectors mark spans of a text; a span is replaced if either fires, overlapping or
// touching spans are merged, and each merged span becomes the single word [Replacement]:
//
//  1. Entropy: every maximal run of [A-Za-z0-9/+_=-] at least 10 bytes long whose Shannon
//     entropy, in bits per byte over the run, is greater than 4.5. A run of n bytes has at
//     most log2(n) bits per byte, so runs shorter than 23 bytes can never fire; the scanner
//     skips them without changing the result. Hex strings (git SHAs, 16 symbols) and UUIDs
//     (17 symbols) stay below log2(17) ≈ 4.09 at any length and are never redacted by it.
//  2. Credential shapes: provider tokens with a distinctive prefix (AWS, GitHub, GitLab,
//     Slack, Stripe, OpenAI, Anthropic, Google, npm, Twilio, SendGrid, Hugging Face, …),
//     private key blocks, JWTs, passwords in URLs, connection strings and curl -u, bearer and
//     basic Authorization values, and generic assignments such as API_KEY=… (value only).
//     Every rule is anchored at a literal keyword, so a text is searched only for keywords
//     and each rule's pattern runs only where its keyword occurs, on a bounded window.
//
// Once a text has findings, every other occurrence of each secret string of 8 bytes or
// more in the same text is redacted too, as gitleaks does for its findings.
//
// Plain mode ([String], [Bytes]) applies this to a whole text. JSONL mode ([JSONL],
// [JSONLAppend]) applies it per line and, for lines that are JSON, per string value, writing
// each changed value back in place so that everything else on the line keeps its bytes.
//
// All work is linear in the input: one pass for entropy, one substring search per keyword,
// and pattern matches limited to a window after each keyword occurrence.
package redact

// Replacement is the literal that replaces every detected secret (spec §12.1).
const Replacement = "REDACTED"
