'use strict';
// The fork-capable agent runtime: which requests it sends for each lifecycle.
//
// A request is {system, tools, settings, messages}. A child is built by extending the
// parent's request objects (the same system blocks, tool objects, settings and message
// objects), never by rebuilding them, so that rendering repeats the parent's bytes.

const { render, toolChoiceNames, DIALECTS } = require('./dialects');

const MARKER = '[[forked-worker]]';
const PLACEHOLDER = 'Handed to a forked worker; its report will follow separately.';
const FALLBACK_SYSTEM =
  'You are a worker agent started on one task. Use the tools you have and finish with a short report.';
const SPAWN_SYSTEM =
  'You are a sub-agent with a fresh context. Carry out the request below; your last message is returned to the agent that started you.';
const REFUSAL = 'Refused: a forked worker may not start forks of its own; finish your task instead.';

// Agents that can be continued talk to each other through this tool; the runtime declares
// it for every agent of such a session (parent and child alike) unless the preset does.
const SEND_MESSAGE = {
  name: 'send_message',
  description: 'Send a message to another agent of this session, named by its agent id.',
  parameters: new Map([
    ['type', 'object'],
    [
      'properties',
      new Map([
        ['agent_id', new Map([['type', 'string']])],
        ['message', new Map([['type', 'string']])],
      ]),
    ],
    ['required', ['agent_id', 'message']],
  ]),
};

const text = (t) => ({ kind: 'text', text: t });
const user = (...parts) => ({ role: 'user', parts });
const lastIndex = (xs, pred) => {
  for (let i = xs.length - 1; i >= 0; i--) if (pred(xs[i])) return i;
  return -1;
};
const openCalls = (msg) => (msg && msg.role === 'model' ? msg.parts.filter((p) => p.kind === 'call') : []);

function directiveText(directive) {
  return (
    `${MARKER}\nYou are a forked worker: the conversation above is your parent's, up to the ` +
    'moment it forked you. Work only on the task below, do not fork again, and end with a ' +
    `short report.\nTask: ${directive}`
  );
}

function guidanceText(parentId, tools) {
  if (!tools.some((t) => t.name === 'send_message')) return '';
  return (
    `\n\nWhen you are done, report to your parent agent (agent_id ${JSON.stringify(parentId)}) ` +
    'with the send_message tool.'
  );
}

// Settings without a tool choice that names a tool the request does not declare.
function settingsFor(settings, tools) {
  const names = toolChoiceNames(settings);
  if (names.every((n) => tools.some((t) => t.name === n))) return settings;
  const copy = new Map(settings);
  copy.delete('tool_choice');
  return copy;
}

// ---------------------------------------------------------------- planted bugs (tests)

function withBug(bug, req) {
  if (bug === 'date') {
    const stamp = `Current date and time: ${new Date().toISOString()}`;
    const system = req.system.length
      ? [...req.system.slice(0, -1), `${req.system[req.system.length - 1]}\n${stamp}`]
      : [stamp];
    return { ...req, system };
  }
  if (bug === 'sorted-tools') {
    const tools = [...req.tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { ...req, tools };
  }
  if (bug === 'whitespace') {
    let done = false;
    const messages = req.messages.map((m) => {
      if (done || m.role !== 'user') return m;
      const k = m.parts.findIndex((p) => p.kind === 'text');
      if (k < 0) return m;
      done = true;
      const parts = m.parts.map((p, i) => (i === k ? { ...p, text: `${p.text.replace(/ {2,}/g, ' ')} ` } : p));
      return { ...m, parts };
    });
    return { ...req, messages };
  }
  return req;
}

// ---------------------------------------------------------------- lifecycles

// The parent's request that produced the last model message of `span`, or null.
function parentRequest(head, span) {
  const k = lastIndex(span, (m) => m.role === 'model');
  return k < 0 ? null : { ...head, messages: span.slice(0, k) };
}

// The message that follows the inherited span of a one-shot fork: a placeholder result for
// every open call of the last model message, then the directive, in one user message.
function forkTail(span, directive) {
  const results = openCalls(span[span.length - 1]).map((c) => ({
    kind: 'response',
    id: c.id,
    name: c.name,
    response: PLACEHOLDER,
    isError: false,
  }));
  return user(...results, text(directiveText(directive)));
}

function oneShot(sc, head, bug) {
  const history = sc.history;
  const span = history.length && history[history.length - 1].role === 'user' ? history.slice(0, -1) : history;
  const parent = sc.snapshot ? parentRequest(head, span) : null;
  if (sc.knownForkChild) return { status: 'rejected', message: REFUSAL, parent };
  let childHead = head;
  if (!sc.snapshot) {
    // No cache-safe parameters yet: the fork runs with the runtime's own head.
    const tools = sc.defaultTools;
    childHead = { system: [FALLBACK_SYSTEM], tools, settings: settingsFor(head.settings, tools) };
  }
  const children = sc.directives.map((d) => {
    const req = { ...childHead, messages: [...span, forkTail(span, d)], inheritedEnd: span.length - 1 };
    return sc.snapshot ? withBug(bug, req) : req;
  });
  return { status: 'assembled', parent, children };
}

function continuable(sc, preset, bug) {
  const c = sc.continuation;
  const declared = preset.tools.some((t) => t.name === SEND_MESSAGE.name);
  const head = declared ? preset : { ...preset, tools: [...preset.tools, SEND_MESSAGE] };
  const k = lastIndex(sc.history, (m) => m.role === 'model' && !m.parts.some((p) => p.kind === 'call'));
  const span = sc.history.slice(0, k + 1);
  const parent = parentRequest(head, span);
  let tools = head.tools;
  if (c.toolFilter) tools = tools.filter((t) => c.toolFilter.includes(t.name));
  if (c.outputTool) tools = [...tools, c.outputTool];
  let system = c.persona || head.system;
  if (c.outputSection) system = [...system, c.outputSection];
  const task = user(text(`${MARKER}\n${c.task}${guidanceText(c.parentId, tools)}`));
  const seed = { system, tools, settings: head.settings, messages: [...span, task], inheritedEnd: k };
  let req = withBug(bug, seed);
  const children = [req];
  const followUps = [];
  for (const f of c.followUps) {
    req = { ...req, messages: [...req.messages, f.reply, f.message] };
    followUps.push(req);
  }
  return { status: 'assembled', parent, children, followUps };
}

function spawn(sc, head) {
  const history = sc.history;
  const parent = parentRequest(head, history);
  const tools = head.tools.filter((t) => t.name !== sc.forkTool);
  const child = {
    system: [SPAWN_SYSTEM],
    tools,
    settings: settingsFor(head.settings, tools),
    messages: [user(text(sc.prompt))],
  };
  let parentNext = null;
  const last = history[history.length - 1];
  const delegation = openCalls(last);
  if (parent && delegation.some((p) => p.name === sc.forkTool)) {
    const results = delegation.map((call) => ({
      kind: 'response',
      id: call.id,
      name: call.name,
      response: call.name === sc.forkTool ? sc.answer : 'Not run.',
      isError: false,
    }));
    parentNext = { ...parent, messages: [...parent.messages, last, user(...results)] };
  }
  return { status: 'assembled', parent, children: [child], parentNext };
}

function assemble(sc, dialect, bug) {
  if (!DIALECTS.includes(dialect)) return { status: 'skipped', reason: `no ${dialect} dialect` };
  const head = { system: sc.system, tools: sc.tools, settings: sc.settings };
  let out;
  if (sc.action === 'fork' || sc.action === 'siblings') out = oneShot(sc, head, bug);
  else if (sc.action === 'continuable') out = continuable(sc, head, bug);
  else if (sc.action === 'spawn') out = spawn(sc, head);
  else return { status: 'skipped', reason: `unknown action ${JSON.stringify(sc.action)}` };
  const body = (req) => (req ? render(dialect, req) : null);
  const reply = { status: out.status };
  if (out.status === 'rejected') {
    reply.message = out.message;
    reply.parent = body(out.parent);
    return reply;
  }
  reply.parent = body(out.parent);
  reply.children = out.children.map(body);
  if (out.followUps) reply.follow_ups = out.followUps.map(body);
  if (out.parentNext !== undefined) reply.parent_next = body(out.parentNext);
  return reply;
}

module.exports = { assemble };
