#!/usr/bin/env node
// A prefix-harness subject in plain Node (no dependencies): one-shot forks, rendered as
// anthropic, gemini, openai and openai-responses request bodies (dialects.js), spoken over
// the JSON-lines protocol of docs/protocol.md (version 1).
//
//   prefix-harness check --subject "cmd:node examples/node-subject/subject.js"
//
// What it implements (docs/protocol.md, "Lifecycles"): the fork reuses the parent's system
// prompt, tools and settings verbatim; its history is the parent's, closed so that the task
// can follow as the next user turn; siblings differ only in their directive; a fork asked for
// inside a fork child is rejected; without cache-safe parameters (snapshot false) it degrades to a
// fallback system prompt and the default tools. Other lifecycles are answered "skipped".
// It declares the "same-scenario" feature: a short assemble (same_scenario, no scenario)
// means the scenario of the previous assemble, which it keeps, parsed, for that.
// Logs go to stderr: stdout carries protocol lines only.
//
// NODE_SUBJECT_BUG=sorted-tool-keys plants a known defect for the tests: the fork children
// of openai-responses declare their tools with sorted keys. Unset, the subject is correct.
'use strict';

const readline = require('node:readline');
const { parseOrdered, stringify } = require('./json');
const { RENDERERS, DIALECTS } = require('./dialects');

const PROTOCOL_VERSION = 1;
const FEATURES = ['same-scenario'];
const IMPLEMENTATION = {
  name: 'node-example',
  language: 'javascript',
  version: '1.0.0',
  dialects: DIALECTS,
  lifecycles: ['one-shot'],
};

// --- wording: this subject's own text -------------------------------------------------------

const OPEN_TAG = '<fork-boilerplate>';
const WORDING = {
  rules: [
    'You are a forked worker started by the agent whose conversation you see above.',
    'Carry out only the directive below, do not fork again, and end with a short report.',
  ],
  placeholder: 'Forked: this call is handled by a separate worker.',
  acknowledgement: 'Understood; working on the directive.',
  begin: 'Begin.',
  fallbackSystem: 'You are a worker agent. Carry out the directive and report briefly.',
  refusal: 'Fork refused: a forked worker cannot start forks of its own.',
};

function childMessage(directive) {
  const rules = WORDING.rules.join('\n');
  return `${OPEN_TAG}\n${rules}\n</fork-boilerplate>\n\nDirective: ${directive}`;
}

// --- the one-shot fork, on neutral scenario JSON --------------------------------------------

const text = (value) => ({ text: value });
const functionCalls = (message) =>
  message.parts.filter((p) => 'function_call' in p).map((p) => p.function_call);
const inForkChild = (history) =>
  history.some((m) => m.parts.some((p) => typeof p.text === 'string' && p.text.includes(OPEN_TAG)));

// The parent's request that produced the last model message of `span`, or null.
function parentHistory(span) {
  for (let end = span.length; end > 0; end -= 1) {
    if (span[end - 1].role === 'model') return span.slice(0, end - 1);
  }
  return null;
}

// The fork's history up to and including its task (docs/protocol.md, the three endings).
function forkHistory(inherited, directive) {
  const child = childMessage(directive);
  const open = inherited.length ? functionCalls(inherited[inherited.length - 1]) : [];
  if (open.length === 0) return [...inherited, { role: 'user', parts: [text(child)] }];
  const placeholders = open.map((call) => {
    const response = { name: call.name, response: WORDING.placeholder };
    return { function_response: 'id' in call ? { id: call.id, ...response } : response };
  });
  return [
    ...inherited,
    { role: 'user', parts: [...placeholders, text(child)] },
    { role: 'model', parts: [text(WORDING.acknowledgement)] },
    { role: 'user', parts: [text(WORDING.begin)] },
  ];
}

function assemble(scenario, dialect) {
  const renderBody = RENDERERS[dialect];
  if (renderBody === undefined) return { status: 'errored', message: `unknown dialect ${dialect}` };
  // each body is sent as the exact JSON text this subject would POST
  const render = (preset, span) => stringify(renderBody(preset, span));
  const renderChild = (preset, span) => stringify(withBug(dialect, renderBody(preset, span)));
  if (scenario.action !== 'fork' && scenario.action !== 'siblings') {
    return { status: 'skipped', reason: `this subject implements one-shot forks, not ${scenario.action}` };
  }
  const history = scenario.history;
  const snapshot = scenario.snapshot !== false;
  const preset = snapshot
    ? scenario.preset
    : { system: [WORDING.fallbackSystem], tools: scenario.default_tools || [], settings: {} };
  const parentOf = (span) => {
    const before = snapshot ? parentHistory(span) : null;
    return before === null ? null : render(scenario.preset, before);
  };
  if (scenario.known_fork_child || inForkChild(history)) {
    return { status: 'rejected', message: WORDING.refusal, parent: parentOf(history) };
  }
  const last = history[history.length - 1];
  const inherited = last !== undefined && last.role === 'user' ? history.slice(0, -1) : history;
  return {
    status: 'assembled',
    parent: parentOf(inherited),
    children: scenario.directives.map((d) => renderChild(preset, forkHistory(inherited, d))),
  };
}

// --- a planted bug, for the tests -----------------------------------------------------------

const BUG = process.env.NODE_SUBJECT_BUG || '';
const BUGS = ['', 'sorted-tool-keys'];

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const sortedKeys = (v) => {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (!isObject(v)) return v;
  return Object.fromEntries(Object.keys(v).sort().map((key) => [key, sortedKeys(v[key])]));
};

// A fork child's body with the planted bug, if any: sorted-tool-keys re-serialises the
// tools of an openai-responses child with sorted keys (the parent keeps them as declared).
function withBug(dialect, body) {
  if (BUG === 'sorted-tool-keys' && dialect === 'openai-responses' && Array.isArray(body.tools)) {
    return { ...body, tools: body.tools.map(sortedKeys) };
  }
  return body;
}

// --- the protocol ---------------------------------------------------------------------------

function reply(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

// The scenario of the previous assemble (full or short), parsed once: a short assemble
// (same_scenario true, no scenario) uses it. Undefined until a full one arrives.
let heldScenario;

// The scenario an assemble request means, or an errored result saying why there is none.
function scenarioOf(request) {
  if ('scenario' in request) {
    heldScenario = request.scenario;
    return { scenario: heldScenario };
  }
  if (request.same_scenario !== true) {
    return { error: { status: 'errored', message: 'assemble has neither scenario nor same_scenario' } };
  }
  if (heldScenario === undefined) {
    return { error: { status: 'errored', message: 'same_scenario, but no scenario was sent before it' } };
  }
  return { scenario: heldScenario };
}

function handle(request, lines) {
  if (request.cmd === 'start') {
    if (request.version === PROTOCOL_VERSION) {
      reply({ ok: true, version: PROTOCOL_VERSION, implementation: IMPLEMENTATION, features: FEATURES });
    } else {
      reply({ ok: false, version: PROTOCOL_VERSION, error: `this subject speaks protocol version ${PROTOCOL_VERSION}` });
    }
  } else if (request.cmd === 'assemble') {
    const { scenario, error } = scenarioOf(request);
    let result = error;
    if (result === undefined) {
      try {
        result = assemble(scenario, request.dialect);
      } catch (thrown) {
        console.error(thrown);
        result = { status: 'errored', message: String(thrown) };
      }
    }
    reply({ seq: request.seq, ...result });
  } else if (request.cmd === 'stop') {
    lines.close();
  } else {
    console.error(`ignoring unknown command ${JSON.stringify(request.cmd)}`);
  }
}

if (!BUGS.includes(BUG)) {
  const known = BUGS.filter(Boolean).join(', ');
  console.error(`unknown NODE_SUBJECT_BUG ${JSON.stringify(BUG)}; expected one of ${known}`);
  process.exit(2);
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => {
  if (line.trim()) handle(parseOrdered(line), lines);
});
