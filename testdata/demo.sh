#!/bin/sh
# make demo: a scripted Claude Code session recorded by entire in a scratch repository.
# The transcript is written the way Claude Code writes it (JSONL, one line per message block)
# and the hooks are called the way Claude Code and git call them.
set -eu
ENTIRE=${1:?usage: demo.sh path/to/entire}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DEMO=$ROOT/.demo
rm -rf "$DEMO"
mkdir -p "$DEMO/home"
export HOME="$DEMO/home" GIT_CONFIG_NOSYSTEM=1 ENTIRE_TEST_TTY=0
export GIT_AUTHOR_NAME="Demo User" GIT_AUTHOR_EMAIL=demo@example.com
export GIT_COMMITTER_NAME="Demo User" GIT_COMMITTER_EMAIL=demo@example.com
BINDIR=$(dirname "$ENTIRE")
export PATH="$BINDIR:$PATH"
REPO=$DEMO/repo
SID=7f3c2a10-1d2e-4f5a-9b8c-0a1b2c3d4e5f
T=$HOME/.claude/projects/demo/$SID.jsonl
mkdir -p "$(dirname "$T")"

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "A repository with entire enabled"
git init -q -b main "$REPO"
cd "$REPO"
printf '# Demo\n' > README.md
git add README.md && git commit -q -m "Initial commit"
entire enable

say "Claude Code starts a session and the user submits a prompt"
echo "{\"session_id\":\"$SID\",\"transcript_path\":\"$T\",\"source\":\"startup\"}" |
  entire hooks claude-code session-start
PROMPT="Please add a greet function in greet.go and a test for it"
echo "{\"type\":\"user\",\"uuid\":\"u1\",\"sessionId\":\"$SID\",\"timestamp\":\"2026-11-22T10:00:00.000Z\",\"message\":{\"role\":\"user\",\"content\":\"$PROMPT\"}}" > "$T"
echo "{\"session_id\":\"$SID\",\"transcript_path\":\"$T\",\"prompt\":\"$PROMPT\"}" |
  entire hooks claude-code user-prompt-submit

say "The agent writes greet.go and greet_test.go"
printf 'package greet\n\nfunc Greet(n string) string { return "hello " + n }\n' > greet.go
printf 'package greet\n\nimport "testing"\n\nfunc TestGreet(t *testing.T) {\n\tif Greet("x") != "hello x" {\n\t\tt.Fatal("bad")\n\t}\n}\n' > greet_test.go
cat >> "$T" <<JSONL
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"$SID","timestamp":"2026-11-22T10:00:02.000Z","message":{"id":"msg_01","role":"assistant","model":"claude-sonnet","content":[{"type":"text","text":"I'll add the function and its test."}],"usage":{"input_tokens":1200,"cache_creation_input_tokens":300,"cache_read_input_tokens":0,"output_tokens":12}}}
{"type":"assistant","uuid":"a2","parentUuid":"a1","sessionId":"$SID","timestamp":"2026-11-22T10:00:03.000Z","message":{"id":"msg_01","role":"assistant","model":"claude-sonnet","content":[{"type":"tool_use","id":"toolu_01","name":"Write","input":{"file_path":"$REPO/greet.go","content":"package greet"}}],"usage":{"input_tokens":1200,"cache_creation_input_tokens":300,"cache_read_input_tokens":0,"output_tokens":64}}}
{"type":"user","uuid":"u2","parentUuid":"a2","sessionId":"$SID","timestamp":"2026-11-22T10:00:04.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"File created successfully"}]}}
{"type":"assistant","uuid":"a3","parentUuid":"u2","sessionId":"$SID","timestamp":"2026-11-22T10:00:05.000Z","message":{"id":"msg_02","role":"assistant","model":"claude-sonnet","content":[{"type":"tool_use","id":"toolu_02","name":"Write","input":{"file_path":"$REPO/greet_test.go","content":"package greet"}}],"usage":{"input_tokens":40,"cache_creation_input_tokens":0,"cache_read_input_tokens":1500,"output_tokens":90}}}
{"type":"user","uuid":"u3","parentUuid":"a3","sessionId":"$SID","timestamp":"2026-11-22T10:00:06.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_02","content":"File created successfully"}]}}
{"type":"assistant","uuid":"a4","parentUuid":"u3","sessionId":"$SID","timestamp":"2026-11-22T10:00:07.000Z","message":{"id":"msg_03","role":"assistant","model":"claude-sonnet","content":[{"type":"text","text":"Added Greet in greet.go with a test in greet_test.go."}],"usage":{"input_tokens":20,"cache_creation_input_tokens":0,"cache_read_input_tokens":1700,"output_tokens":18}}}
JSONL

say "The turn ends (Stop hook): a temporary checkpoint on the shadow branch"
echo "{\"session_id\":\"$SID\",\"transcript_path\":\"$T\",\"last_assistant_message\":\"Added Greet in greet.go with a test in greet_test.go.\"}" |
  entire hooks claude-code stop
git branch --list 'entire/*'

say "The user commits; git's hooks link and condense the session"
git add greet.go greet_test.go
git commit -q -m "Add greet" 2>&1
git log -1 --format='%h %s%n%n%b'
CP=$(git log -1 --format=%B | sed -n 's/^Entire-Checkpoint: //p')
DIR=$(echo "$CP" | cut -c1-2)/$(echo "$CP" | cut -c3-)

say "The checkpoint $CP explained (entire explain -c $CP)"
entire explain -c "$CP" --full

say "Where it lives on entire/checkpoints/v1"
git ls-tree -r --name-only entire/checkpoints/v1 -- "$DIR"

say "The branch's checkpoints (entire explain)"
entire explain

say "The session's journal, replayed (entire replay)"
entire replay "$SID" | grep -v '^ *"' | sed -n '/^#/,/^Final/p' | grep -v '^Final' | cut -c1-160

say "Session status"
entire status
echo
echo "Scratch repository left in $REPO"
