#!/usr/bin/env node
// A prefix-harness subject in plain Node (no dependencies): one-shot forks, rendered as
// anthropic, gemini and openai request bodies, spoken over the JSON-lines protocol of
// docs/protocol.md (version 1).
//
//   prefix-harness check --subject "cmd:node examples/node-subject/subject.js"
//
// What it implements (SPEC §5.2): the fork reuses the parent's system prompt, tools and
// settings verbatim; its history is the parent's, closed so that the task can follow as the
// next user turn; siblings differ only in their directive; a fork asked for inside a fork
// child is rejected; without cache-safe parameters (snapshot false) it degrades to a
// fallback system prompt and the default tools. Other lifecycles are answered "skipped".
// Logs go to stderr: stdout carries protocol lines only.
'use strict';

const readline = require('node:readline');

// --- JSON that keeps key order -----------------------------------------------------------
// A JavaScript object lists integer-like keys ("0", "12") first, whatever order they came
// in, so JSON.parse then JSON.stringify moves them: a byte change the harness catches
// (history-inherited). Such keys are marked before parsing and unmarked when written.

const KEY_MARK = '\uE000#';
const TOKEN = /"(?:[^"\\]|\\.)*"|[^"]+/g;
const INTEGER_KEY = /^"(?:0|[1-9][0-9]*)"$/;

function parseOrdered(text) {
  const tokens = text.match(TOKEN) || [];
  const marked = tokens.map((token, i) =>
    INTEGER_KEY.test(token) && /^\s*:/.test(tokens[i + 1] || '') ? `"${KEY_MARK}${token.slice(1)}` : token,
  );
  return JSON.parse(marked.join(''));
}

function stringify(value) {
  return JSON.stringify(value).replaceAll(`"${KEY_MARK}`, '"');
}

const PROTOCOL_VERSION = 1;
const IMPLEMENTATION = {
  name: 'node-example',
  language: 'javascript',
  version: '1.0.0',
  dialects: ['anthropic', 'gemini', 'openai'],
  lifecycles: ['one-shot'],
};

// --- wording: this subject's own text ------------------------------------------------------

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

// The fork's history up to and including its task (SPEC §5.2, the three endings).
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
  const render = RENDERERS[dialect];
  if (render === undefined) return { status: 'errored', message: `unknown dialect ${dialect}` };
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
    children: scenario.directives.map((d) => render(preset, forkHistory(inherited, d))),
  };
}

// --- dialects: the shapes (and key order) of harness/dialects/*.py render() -----------------

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const compact = (fields) =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== null));
const has = (v) => v !== undefined && v !== null;
const textsOf = (message) => message.parts.filter((p) => 'text' in p);

function renderGemini(preset, history) {
  const s = preset.settings || {};
  const extra = (s.extra && s.extra.gemini) || {};
  const body = {};
  if (preset.system && preset.system.length) {
    body.systemInstruction = { parts: preset.system.map(text) };
  }
  const tools = [...(extra.tools || [])];
  if (preset.tools && preset.tools.length) {
    tools.unshift({ functionDeclarations: preset.tools.map(geminiTool) });
  }
  if (tools.length) body.tools = tools;
  const toolConfig = {};
  if (has(s.tool_choice)) {
    const modes = { auto: 'AUTO', none: 'NONE', required: 'ANY', tool: 'ANY' };
    const calling = { mode: modes[s.tool_choice.mode] };
    if (s.tool_choice.names && s.tool_choice.names.length) {
      calling.allowedFunctionNames = s.tool_choice.names;
    }
    toolConfig.functionCallingConfig = calling;
  }
  Object.assign(toolConfig, extra.toolConfig || {});
  if (Object.keys(toolConfig).length) body.toolConfig = toolConfig;
  body.contents = history.map((m) => ({
    role: m.role === 'model' ? 'model' : 'user',
    parts: m.parts.map(geminiPart),
  }));
  const config = compact({
    temperature: s.temperature,
    topP: s.top_p,
    topK: s.top_k,
    maxOutputTokens: s.max_output_tokens,
    stopSequences: s.stop,
  });
  Object.assign(config, extra.generationConfig || {});
  if (has(s.output_schema)) {
    if (!('responseMimeType' in config)) config.responseMimeType = 'application/json';
    config.responseSchema = s.output_schema.schema;
  }
  if (has(s.thinking)) config.thinkingConfig = geminiThinking(s.thinking);
  if (Object.keys(config).length) body.generationConfig = config;
  for (const [key, value] of Object.entries(extra)) {
    if (!['tools', 'toolConfig', 'generationConfig'].includes(key)) body[key] = value;
  }
  return body;
}

function geminiTool(tool) {
  return compact({ name: tool.name, description: tool.description, parameters: tool.parameters });
}

function geminiThinking(t) {
  const budgets = { disabled: 0, adaptive: -1 };
  const budget = has(t.budget_tokens) ? t.budget_tokens : budgets[t.mode];
  return compact({ includeThoughts: t.include_thoughts, thinkingBudget: budget, thinkingLevel: t.effort });
}

function geminiPart(part) {
  if ('text' in part) return { text: part.text };
  if ('thinking' in part) {
    return compact({ text: part.thinking.text, thought: true, thoughtSignature: part.thinking.signature });
  }
  if ('function_call' in part) {
    const c = part.function_call;
    const call = compact({ id: c.id, name: c.name, args: c.args });
    return compact({ functionCall: call, thoughtSignature: c.signature });
  }
  if ('function_response' in part) {
    const r = part.function_response;
    let response = r.response;
    if (r.is_error) response = { error: response };
    else if (!isObject(response)) response = { output: response };
    return { functionResponse: compact({ id: r.id, name: r.name, response }) };
  }
  const image = part.image;
  const blob = compact({ mimeType: image.mime_type });
  const out = has(image.data)
    ? { inlineData: { ...blob, data: image.data } }
    : { fileData: { ...blob, fileUri: image.url } };
  if (has(image.detail) && image.detail !== 'auto') {
    out.mediaResolution = { level: `MEDIA_RESOLUTION_${image.detail.toUpperCase()}` };
  }
  return out;
}

const OPENAI_OWN = new Set([
  'model', 'messages', 'tools', 'tool_choice', 'temperature', 'top_p', 'stop',
  'max_completion_tokens', 'reasoning_effort',
]);

function renderOpenAI(preset, history) {
  const s = preset.settings || {};
  const extra = (s.extra && s.extra.openai) || {};
  const body = has(s.model) ? { model: s.model } : {};
  const system = [...(preset.system || [])];
  let k = 0;
  while (k < history.length && history[k].role === 'system') {
    system.push(...textsOf(history[k]).map((p) => p.text));
    k += 1;
  }
  body.messages = system.map((block) => ({ role: 'system', content: block }));
  for (const message of history.slice(k)) {
    if (message.role === 'model') body.messages.push(openaiAssistant(message));
    else if (message.role === 'system') {
      body.messages.push({ role: 'system', content: openaiContent(textsOf(message)) });
    } else body.messages.push(...openaiUser(message));
  }
  if (preset.tools && preset.tools.length) {
    body.tools = preset.tools.map((tool) => openaiTool(tool, extra.tools));
  }
  if (has(s.tool_choice)) body.tool_choice = openaiToolChoice(s.tool_choice);
  if (has(s.output_schema)) {
    const o = s.output_schema;
    const spec = compact({ name: o.name || 'output', schema: o.schema, strict: o.strict });
    body.response_format = { type: 'json_schema', json_schema: spec };
  }
  Object.assign(body, compact({
    temperature: s.temperature,
    top_p: s.top_p,
    max_completion_tokens: s.max_output_tokens,
    stop: s.stop,
    reasoning_effort: s.thinking && s.thinking.effort,
  }));
  for (const [key, value] of Object.entries(extra)) {
    if (!OPENAI_OWN.has(key) && !(key in body)) body[key] = value;
  }
  return body;
}

function openaiUser(message) {
  const out = [];
  const responses = message.parts.filter((p) => 'function_response' in p);
  for (const { function_response: r } of responses) {
    const tool = has(r.id) ? { role: 'tool', tool_call_id: r.id } : { role: 'tool' };
    tool.content = typeof r.response === 'string' ? r.response : stringify(r.response);
    out.push(tool);
  }
  const rest = message.parts.filter((p) => 'text' in p || 'image' in p);
  if (rest.length || !responses.length) out.push({ role: 'user', content: openaiContent(rest) });
  return out;
}

function openaiContent(parts) {
  if (parts.length === 1 && 'text' in parts[0]) return parts[0].text;
  return parts.map((part) => {
    if ('text' in part) return { type: 'text', text: part.text };
    const i = part.image;
    const url = has(i.data) ? `data:${i.mime_type || ''};base64,${i.data}` : i.url;
    return { type: 'image_url', image_url: compact({ url, detail: i.detail }) };
  });
}

function openaiAssistant(message) {
  const texts = textsOf(message);
  const body = { role: 'assistant', content: texts.length ? openaiContent(texts) : null };
  const thinking = message.parts
    .filter((p) => 'thinking' in p && !p.thinking.redacted)
    .map((p) => p.thinking.text);
  if (thinking.length) body.reasoning_content = thinking.join('');
  const calls = functionCalls(message);
  if (calls.length) {
    body.tool_calls = calls.map((c) => {
      const args = typeof c.args === 'string' ? c.args : stringify(has(c.args) ? c.args : null);
      const function_ = { name: c.name, arguments: args };
      return has(c.id) ? { id: c.id, type: 'function', function: function_ } : { type: 'function', function: function_ };
    });
  }
  return body;
}

function openaiTool(tool, extras) {
  const fn = compact({ name: tool.name, description: tool.description, parameters: tool.parameters });
  const kept = isObject(extras) ? extras[tool.name] : undefined;
  if (isObject(kept)) {
    for (const [key, value] of Object.entries(kept)) {
      if (!['name', 'description', 'parameters'].includes(key)) fn[key] = value;
    }
  }
  return { type: 'function', function: fn };
}

function openaiToolChoice(choice) {
  const names = choice.names || [];
  if (choice.mode === 'tool' && names.length === 1) {
    return { type: 'function', function: { name: names[0] } };
  }
  const mode = choice.mode === 'tool' ? 'required' : choice.mode;
  if (!names.length || mode === 'none') return mode;
  const tools = names.map((name) => ({ type: 'function', function: { name } }));
  return { type: 'allowed_tools', allowed_tools: { mode, tools } };
}

const ANTHROPIC_KNOWN = new Set([
  'model', 'max_tokens', 'temperature', 'top_p', 'top_k', 'stop_sequences', 'thinking',
  'tool_choice', 'output_format', 'system', 'tools', 'messages',
]);
const SCHEMA_TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);

function renderAnthropic(preset, history) {
  const s = preset.settings || {};
  const extra = (s.extra && s.extra.anthropic) || {};
  const system = preset.system || [];
  const tools = (preset.tools || []).map(anthropicTool);
  const body = compact({
    model: s.model,
    max_tokens: s.max_output_tokens,
    system: system.length === 0 ? undefined
      : system.length === 1 ? system[0]
      : system.map((block) => ({ type: 'text', text: block })),
    tools: tools.length ? tools : undefined,
    tool_choice: anthropicToolChoice(s.tool_choice, extra.tool_choice),
    thinking: anthropicThinking(s.thinking),
    temperature: s.temperature,
    top_p: s.top_p,
    top_k: s.top_k,
    stop_sequences: s.stop,
    output_format: has(s.output_schema)
      ? { type: 'json_schema', schema: s.output_schema.schema }
      : undefined,
  });
  for (const [key, value] of Object.entries(extra)) {
    if (!ANTHROPIC_KNOWN.has(key)) body[key] = value;
  }
  body.messages = history.map(anthropicMessage);
  return body;
}

function anthropicTool(tool) {
  const params = tool.parameters;
  const kind = isObject(params) ? params.type : undefined;
  if (typeof kind === 'string' && !SCHEMA_TYPES.has(kind)) return params;
  const schema = isObject(params) ? params : { type: 'object', properties: {} };
  return compact({ name: tool.name, description: tool.description, input_schema: schema });
}

function anthropicToolChoice(choice, original) {
  if (!has(choice)) return undefined;
  const types = { auto: 'auto', required: 'any', tool: 'any', none: 'none' };
  const names = choice.names || [];
  const name = choice.mode === 'tool' && names.length ? names[0] : undefined;
  const out = compact({ type: name ? 'tool' : types[choice.mode], name });
  if (isObject(original)) {
    for (const [key, value] of Object.entries(original)) {
      if (key !== 'type' && key !== 'name') out[key] = value;
    }
  }
  return out;
}

function anthropicThinking(t) {
  if (!has(t) || (!has(t.mode) && !has(t.budget_tokens))) return undefined;
  return compact({ type: t.mode || 'enabled', budget_tokens: t.budget_tokens });
}

function anthropicMessage(message) {
  const role = message.role === 'model' ? 'assistant' : 'user';
  let parts = message.parts;
  if (role === 'user') {
    parts = [
      ...parts.filter((p) => 'function_response' in p),
      ...parts.filter((p) => !('function_response' in p)),
    ];
  }
  if (parts.length === 1 && 'text' in parts[0]) return { role, content: parts[0].text };
  return { role, content: parts.map(anthropicBlock) };
}

function anthropicBlock(part) {
  if ('text' in part) return { type: 'text', text: part.text };
  if ('thinking' in part) {
    const t = part.thinking;
    if (t.redacted) return { type: 'redacted_thinking', data: t.text };
    return compact({ type: 'thinking', thinking: t.text, signature: t.signature });
  }
  if ('function_call' in part) {
    const c = part.function_call;
    return compact({ type: 'tool_use', id: c.id, name: c.name, input: has(c.args) ? c.args : {} });
  }
  if ('function_response' in part) {
    const r = part.function_response;
    const content =
      typeof r.response === 'string' || Array.isArray(r.response)
        ? r.response
        : stringify(r.response);
    return compact({
      type: 'tool_result',
      tool_use_id: r.id,
      content,
      is_error: r.is_error ? true : undefined,
    });
  }
  const i = part.image;
  const source = has(i.url)
    ? { type: 'url', url: i.url }
    : compact({ type: 'base64', media_type: i.mime_type, data: i.data });
  return { type: 'image', source };
}

// Each renderer returns the body as the exact JSON text this subject would POST.
const RENDERERS = Object.fromEntries(
  Object.entries({ anthropic: renderAnthropic, gemini: renderGemini, openai: renderOpenAI }).map(
    ([name, render]) => [name, (preset, history) => stringify(render(preset, history))],
  ),
);

// --- the protocol ---------------------------------------------------------------------------

function reply(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

function handle(request, lines) {
  if (request.cmd === 'start') {
    if (request.version === PROTOCOL_VERSION) {
      reply({ ok: true, version: PROTOCOL_VERSION, implementation: IMPLEMENTATION });
    } else {
      reply({ ok: false, version: PROTOCOL_VERSION, error: `this subject speaks protocol version ${PROTOCOL_VERSION}` });
    }
  } else if (request.cmd === 'assemble') {
    let result;
    try {
      result = assemble(request.scenario, request.dialect);
    } catch (error) {
      console.error(error);
      result = { status: 'errored', message: String(error) };
    }
    reply({ seq: request.seq, ...result });
  } else if (request.cmd === 'stop') {
    lines.close();
  } else {
    console.error(`ignoring unknown command ${JSON.stringify(request.cmd)}`);
  }
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => {
  if (line.trim()) handle(parseOrdered(line), lines);
});
