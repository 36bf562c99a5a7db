// The dialects of the Node example subject (see subject.js): a neutral preset and history
// rendered as the request body each provider's API takes, with the shapes and key order of
// harness/dialects/*.py render(). Each renderer returns the body as a plain object; the
// subject sends it as the JSON text `stringify` makes.
'use strict';

const { stringify } = require('./json');

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const compact = (fields) =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== null));
// a JSON Schema type: parameters of another `type` are a whole declaration kept as sent
const SCHEMA_TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);
const has = (v) => v !== undefined && v !== null;
const text = (value) => ({ text: value });
const textsOf = (message) => message.parts.filter((p) => 'text' in p);
const functionCalls = (message) =>
  message.parts.filter((p) => 'function_call' in p).map((p) => p.function_call);
const textBlock = (value) => ({ type: 'text', text: value });
const isCallOrResponse = (p) => 'function_call' in p || 'function_response' in p;

// An opaque part (a block the neutral model has no name for): verbatim in its own dialect,
// elsewhere `asText` of its compact JSON.
function opaqueBlock(o, dialect, asText) {
  return o.dialect === dialect && isObject(o.value) ? o.value : asText(stringify(o.value));
}

// --- Gemini generateContent (POST /v1beta/models/{model}:generateContent) -------------------

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
  if ('opaque' in part) return opaqueBlock(part.opaque, 'gemini', text);
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

// --- OpenAI chat completions (POST /v1/chat/completions) ------------------------------------

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
      const content = openaiContent(message.parts.filter((p) => !isCallOrResponse(p)));
      body.messages.push({ role: 'system', content });
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
  const rest = message.parts.filter((p) => !isCallOrResponse(p));
  if (rest.length || !responses.length) out.push({ role: 'user', content: openaiContent(rest) });
  return out;
}

function openaiContent(parts) {
  if (parts.length === 1 && 'text' in parts[0]) return parts[0].text;
  return parts.map((part) => {
    if ('text' in part) return { type: 'text', text: part.text };
    if ('thinking' in part) return { type: 'text', text: part.thinking.text };
    if ('opaque' in part) return opaqueBlock(part.opaque, 'openai', textBlock);
    const i = part.image;
    const url = has(i.data) ? `data:${i.mime_type || ''};base64,${i.data}` : i.url;
    return { type: 'image_url', image_url: compact({ url, detail: i.detail }) };
  });
}

function openaiAssistant(message) {
  const texts = message.parts.filter((p) => 'text' in p || 'image' in p || 'opaque' in p);
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
  const params = tool.parameters;
  const kind = isObject(params) ? params.type : undefined;
  if (typeof kind === 'string' && !SCHEMA_TYPES.has(kind)) return params;
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
// --- Anthropic messages (POST /v1/messages) -------------------------------------------------

const ANTHROPIC_KNOWN = new Set([
  'model', 'max_tokens', 'temperature', 'top_p', 'top_k', 'stop_sequences', 'thinking',
  'tool_choice', 'output_format', 'system', 'tools', 'messages',
]);

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
  const role = { model: 'assistant', system: 'system' }[message.role] || 'user';
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
  if ('opaque' in part) return opaqueBlock(part.opaque, 'anthropic', textBlock);
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

// --- OpenAI Responses (POST /v1/responses): instructions, input items, flat tools -----------

const RESPONSES = 'openai-responses';
// fields rendered from the neutral settings, never copied from `extra`; and `system_items`,
// an `extra` key the harness reserves for a system read from traffic
const RESPONSES_OWN = new Set([
  'model', 'instructions', 'input', 'tools', 'tool_choice', 'text', 'reasoning',
  'temperature', 'top_p', 'max_output_tokens', 'system_items',
]);
const RESPONSES_FUNCTION_KEYS = new Set(['type', 'name', 'description', 'parameters']);

function renderResponses(preset, history) {
  const s = preset.settings || {};
  const extra = (s.extra && s.extra[RESPONSES]) || {};
  const body = has(s.model) ? { model: s.model } : {};
  // a leading run of system messages joins the preset's blocks
  const system = [...(preset.system || [])];
  let k = 0;
  while (k < history.length && history[k].role === 'system') {
    system.push(...textsOf(history[k]).map((p) => p.text));
    k += 1;
  }
  // the first block is the instructions, the others one developer message
  if (system.length) body.instructions = system[0];
  body.input = [];
  if (system.length > 1) {
    const content = system.slice(1).map((block) => ({ type: 'input_text', text: block }));
    body.input.push({ type: 'message', role: 'developer', content });
  }
  for (const message of history.slice(k)) {
    if (message.role === 'model') body.input.push(...responsesModel(message));
    else if (message.role === 'system') {
      const content = message.parts.filter(isContent).map((p) => responsesPart(p, 'user'));
      body.input.push({ type: 'message', role: 'developer', content });
    } else body.input.push(...responsesUser(message));
  }
  if (preset.tools && preset.tools.length) {
    body.tools = preset.tools.map((tool) => responsesTool(tool, extra.tools));
  }
  const choice = has(s.tool_choice) ? responsesToolChoice(s.tool_choice) : extra.tool_choice;
  if (has(choice)) body.tool_choice = choice;
  const textField = {};
  if (has(s.output_schema)) {
    const o = s.output_schema;
    const name = o.name || 'output';
    textField.format = compact({ type: 'json_schema', name, schema: o.schema, strict: o.strict });
  }
  mergeKept(textField, extra.text, []);
  if (Object.keys(textField).length) body.text = textField;
  const reasoning = compact({ effort: s.thinking && s.thinking.effort });
  mergeKept(reasoning, extra.reasoning, ['effort']);
  if (Object.keys(reasoning).length) body.reasoning = reasoning;
  Object.assign(body, compact({
    temperature: s.temperature,
    top_p: s.top_p,
    max_output_tokens: s.max_output_tokens,
  }));
  for (const [key, value] of Object.entries(extra)) {
    if (!RESPONSES_OWN.has(key) && !(key in body)) body[key] = value;
  }
  return body;
}

// Fields of a kept object (from `extra`) that the neutral settings did not render.
function mergeKept(out, kept, skip) {
  if (!isObject(kept)) return;
  for (const [key, value] of Object.entries(kept)) {
    if (!skip.includes(key) && !(key in out)) out[key] = value;
  }
}

// An opaque part that is a whole item of this dialect (a call, an output), not a content part.
function isResponsesItem(part) {
  const o = part.opaque;
  if (o.dialect !== RESPONSES || !isObject(o.value)) return false;
  const kind = o.kind;
  const partType = kind.startsWith('input_') || kind.startsWith('output_') || kind === 'refusal';
  return 'call_id' in o.value || !partType;
}

// Whether a part renders inside a message's content (not as an item of its own).
function isContent(part) {
  if ('text' in part || 'image' in part) return true;
  return 'opaque' in part && !isResponsesItem(part);
}

// A text part (input_text from the user, output_text from the model), an input_image, or an
// opaque part: as sent when it is this dialect's, else as a text of its compact JSON.
function responsesPart(part, side) {
  const textType = side === 'model' ? 'output_text' : 'input_text';
  if ('opaque' in part) {
    return opaqueBlock(part.opaque, RESPONSES, (value) => ({ type: textType, text: value }));
  }
  if ('text' in part) return { type: textType, text: part.text };
  const i = part.image;
  const url = has(i.data) ? `data:${i.mime_type || ''};base64,${i.data}` : i.url;
  return compact({ type: 'input_image', image_url: url, detail: i.detail });
}

// Tool outputs (and other items) first, then the rest as one user message.
function responsesUser(message) {
  const out = [];
  const items = message.parts.filter((p) => !isContent(p));
  for (const part of items) {
    if ('function_response' in part) out.push(responsesOutput(part.function_response));
    else if ('opaque' in part) out.push(part.opaque.value);
  }
  const rest = message.parts.filter(isContent);
  if (rest.length || !items.length) {
    const content = rest.map((p) => responsesPart(p, 'user'));
    out.push({ type: 'message', role: 'user', content });
  }
  return out;
}

function responsesOutput(r) {
  const value = r.response;
  // a string, or an array of typed parts, as it is; any other JSON as its compact text
  const typed = (p) => isObject(p) && typeof p.type === 'string';
  const parts = Array.isArray(value) && value.every(typed);
  const output = typeof value === 'string' || parts ? value : stringify(value);
  return compact({ type: 'function_call_output', call_id: r.id, output });
}

// In part order: reasoning items, one assistant message per run of content parts, call
// items, and this dialect's own items as sent.
function responsesModel(message) {
  const out = [];
  let run = [];
  const flush = () => {
    if (run.length) {
      const content = run.map((p) => responsesPart(p, 'model'));
      out.push({ type: 'message', role: 'assistant', content });
    }
    run = [];
  };
  for (const part of message.parts) {
    if (isContent(part)) {
      run.push(part);
      continue;
    }
    flush();
    if ('thinking' in part) out.push(responsesReasoning(part.thinking));
    else if ('function_call' in part) out.push(responsesCall(part.function_call));
    else if ('opaque' in part) out.push(part.opaque.value);
  }
  flush();
  return out;
}

function responsesReasoning(t) {
  const summary = t.redacted || !t.text ? [] : [{ type: 'summary_text', text: t.text }];
  const encrypted = has(t.signature) ? t.signature : t.redacted ? t.text : undefined;
  return compact({ type: 'reasoning', summary, encrypted_content: encrypted });
}

function responsesCall(c) {
  const args = typeof c.args === 'string' ? c.args : stringify(has(c.args) ? c.args : null);
  return compact({ type: 'function_call', call_id: c.id, name: c.name, arguments: args });
}

// A flat function tool with its kept unknown fields, or a kept declaration of another type.
function responsesTool(tool, extras) {
  const params = tool.parameters;
  const kind = isObject(params) ? params.type : undefined;
  if (typeof kind === 'string' && !SCHEMA_TYPES.has(kind)) return params;
  const { name, description } = tool;
  const out = compact({ type: 'function', name, description, parameters: params });
  const kept = isObject(extras) ? extras[tool.name] : undefined;
  if (isObject(kept)) {
    for (const [key, value] of Object.entries(kept)) {
      if (!RESPONSES_FUNCTION_KEYS.has(key)) out[key] = value;
    }
  }
  return out;
}

function responsesToolChoice(choice) {
  const names = choice.names || [];
  if (choice.mode === 'tool' && names.length === 1) return { type: 'function', name: names[0] };
  const mode = choice.mode === 'tool' ? 'required' : choice.mode;
  if (!names.length || mode === 'none') return mode;
  return { type: 'allowed_tools', mode, tools: names.map((name) => ({ type: 'function', name })) };
}

const RENDERERS = {
  anthropic: renderAnthropic,
  gemini: renderGemini,
  openai: renderOpenAI,
  [RESPONSES]: renderResponses,
};

module.exports = { RENDERERS, DIALECTS: Object.keys(RENDERERS) };
