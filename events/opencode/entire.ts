// Entire session recorder for OpenCode: written by `entire enable`, removed by `entire disable`.
// Entire rewrites this file when it is upgraded; to keep your own changes, delete the line above
// (Entire then never touches the file again).
//
// OpenCode has no command hooks, so this plugin forwards the session lifecycle to the recorder:
// each call runs `entire hooks opencode <verb>` with one JSON object on stdin and waits for it
// (OpenCode's `run` mode exits as soon as the session goes idle). It never throws: a recorder that
// is missing or fails must not disturb the agent. Plain JavaScript, valid TypeScript, no imports
// but node:child_process, so it loads under Bun and under the Desktop app's sidecar alike.
import { spawnSync } from "node:child_process"

const COMMAND = "entire"
const TIMEOUT_MS = 60000
const FILE_TOOLS = ["write", "edit", "multiedit", "patch", "apply_patch"]

const text = (v) => (typeof v === "string" ? v : "")

// promptOf joins the text the user typed; synthetic parts (file contents OpenCode attached) and
// ignored parts are not the prompt.
const promptOf = (parts) => {
  if (!Array.isArray(parts)) return ""
  const out = []
  for (const p of parts) {
    if (p && p.type === "text" && !p.synthetic && !p.ignored && text(p.text) !== "") out.push(p.text)
  }
  return out.join("\n\n")
}

export const EntireRecorder = async (ctx) => {
  const directory = ctx && typeof ctx.directory === "string" ? ctx.directory : undefined
  const loadedAt = Date.now()
  const children = new Set() // subagent sessions (parentID set): never reported
  const sessions = new Set() // top-level sessions seen by this process
  const openTurns = new Set() // sessions whose turn start was reported and turn end was not
  const reported = new Set() // user message ids already reported as a turn start
  const pending = new Map() // user message id -> session id, waiting for its first text part

  const send = (verb, payload) => {
    try {
      spawnSync(COMMAND, ["hooks", "opencode", verb], {
        cwd: directory,
        input: JSON.stringify(payload),
        stdio: ["pipe", "ignore", "ignore"],
        timeout: TIMEOUT_MS,
        windowsHide: true,
      })
    } catch (_) {
      // the recorder is optional: ignore a missing binary or a failed run
    }
  }

  const topLevel = (id) => typeof id === "string" && id !== "" && !children.has(id)

  const sessionStart = (info) => {
    if (!info || !topLevel(info.id)) return
    if (info.parentID) {
      children.add(info.id)
      return
    }
    sessions.add(info.id)
    send("session-start", { session_id: info.id, source: "startup" })
  }

  const turnStart = (sessionID, messageID, prompt, model) => {
    if (!topLevel(sessionID)) return
    if (messageID) {
      if (reported.has(messageID)) return
      if (reported.size > 10000) reported.clear()
      reported.add(messageID)
      pending.delete(messageID)
    } else if (openTurns.has(sessionID)) {
      return
    }
    sessions.add(sessionID)
    openTurns.add(sessionID)
    const payload = { session_id: sessionID, prompt: prompt }
    if (model) payload.model = model
    send("turn-start", payload)
  }

  // flushPending reports a user message whose text never arrived, before its turn goes on.
  const flushPending = (sessionID) => {
    for (const [messageID, owner] of pending) {
      if (owner === sessionID) turnStart(sessionID, messageID, "", "")
    }
  }

  const turnEnd = (sessionID) => {
    if (!topLevel(sessionID)) return
    flushPending(sessionID)
    if (!openTurns.has(sessionID)) return
    openTurns.delete(sessionID)
    send("turn-end", { session_id: sessionID })
  }

  const sessionEnd = (sessionID, reason) => {
    if (!topLevel(sessionID)) return
    sessions.delete(sessionID)
    openTurns.delete(sessionID)
    send("session-end", { session_id: sessionID, reason: reason })
  }

  // A user message seen only on the bus (no chat.message call): its text comes in a later part.
  const userMessage = (info) => {
    if (!info || info.role !== "user" || !topLevel(info.sessionID)) return
    const id = text(info.id)
    if (id === "" || reported.has(id) || pending.has(id)) return
    const created = info.time && typeof info.time.created === "number" ? info.time.created : loadedAt
    if (created < loadedAt) return // an old message being updated, not a new prompt
    pending.set(id, info.sessionID)
  }

  const messagePart = (part) => {
    if (!part || part.type !== "text" || part.synthetic || part.ignored) return
    const owner = pending.get(text(part.messageID))
    if (owner !== undefined && text(part.text) !== "") turnStart(owner, part.messageID, part.text, "")
  }

  const onEvent = (event) => {
    const p = (event && event.properties) || {}
    switch (event && event.type) {
      case "session.created":
        sessionStart(p.info)
        break
      case "session.deleted":
        if (p.info && !p.info.parentID) sessionEnd(p.info.id, "deleted")
        else if (p.info) children.delete(p.info.id)
        break
      case "message.updated":
        userMessage(p.info)
        break
      case "message.part.updated":
        messagePart(p.part)
        break
      case "session.status":
        if (p.status && p.status.type === "busy") flushPending(p.sessionID)
        if (p.status && p.status.type === "idle") turnEnd(p.sessionID)
        break
      case "session.idle":
        turnEnd(p.sessionID)
        break
      case "server.instance.disposed":
        for (const id of Array.from(sessions)) sessionEnd(id, "exit")
        break
    }
  }

  return {
    event: async (input) => {
      try {
        onEvent(input && input.event)
      } catch (_) {}
    },
    "chat.message": async (input, output) => {
      try {
        const message = (output && output.message) || {}
        const sessionID = text(input && input.sessionID) || text(message.sessionID)
        const messageID = text(message.id) || text(input && input.messageID)
        const model = (input && input.model) || message.model || {}
        turnStart(sessionID, messageID, promptOf(output && output.parts), text(model.modelID))
      } catch (_) {}
    },
    "tool.execute.before": async (input, output) => {
      try {
        if (!input || input.tool !== "task" || !topLevel(input.sessionID)) return
        const args = (output && output.args) || {}
        send("subagent-start", {
          session_id: input.sessionID,
          tool_use_id: text(input.callID),
          subagent_type: text(args.subagent_type),
          description: text(args.description),
        })
      } catch (_) {}
    },
    "tool.execute.after": async (input, output) => {
      try {
        if (!input || !topLevel(input.sessionID)) return
        if (input.tool === "task") {
          const meta = (output && output.metadata) || {}
          const child = text(meta.sessionId)
          if (child !== "") children.add(child)
          send("subagent-end", {
            session_id: input.sessionID,
            tool_use_id: text(input.callID),
            subagent_id: child,
          })
        } else if (FILE_TOOLS.includes(input.tool)) {
          send("tool-after", {
            session_id: input.sessionID,
            tool_name: input.tool,
            tool_use_id: text(input.callID),
          })
        }
      } catch (_) {}
    },
  }
}
