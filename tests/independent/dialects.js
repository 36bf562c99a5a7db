'use strict';
// Wire rendering of this runtime's requests: one renderer per provider API.
//
// A request is {system: [text], tools: [tool], settings: Map, messages: [message]}, in the
// runtime's own model (see model.js). Rendering is a pure function of the request, message
// by message, so a request that extends another renders to a body whose prefix repeats the
// other's bytes.

const { stringify, get } = require('./json');

// ---------------------------------------------------------------- shared helpers

const calls = (msg) => msg.parts.filter((p) => p.kind === 'call');
const responses = (msg) => msg.parts.filter((p) => p.kind === 'response');
const others = (msg) => msg.parts.filter((p) => p.kind !== 'response');

// Anthropic and OpenAI pair calls and results by id. A call without one gets an id derived
// from its position, and a result without one takes the id of the call it answers (the
// k-th result named N answers the k-th call named N of the model message before it).
function withCallIds(messages) {
  let previous = null;
  return messages.map((msg, m) => {
    let taken = new Map();
    const parts = msg.parts.map((p, k) => {
      if (p.kind === 'call' && p.id === undefined) return { ...p, id: `iw_${m}_${k}` };
      if (p.kind === 'response' && p.id === undefined && previous) {
        const n = taken.get(p.name) || 0;
        taken.set(p.name, n + 1);
        const call = calls(previous).filter((c) => c.name === p.name)[n];
        if (call) return { ...p, id: call.id };
      }
      return p;
    });
    const out = { ...msg, parts };
    if (msg.role === 'model') previous = out;
    taken = null;
    return out;
  });
}

// A function response as text: a string as it is, anything else as compact JSON.
const responseText = (v) => (typeof v === 'string' ? v : stringify(v));

function extraFields(settings, dialect, reserved) {
  const entry = get(get(settings, 'extra'), dialect);
  if (!(entry instanceof Map)) return [];
  return [...entry.entries()].filter(([k]) => !reserved.includes(k));
}

// Neutral tool choice -> the names it mentions (used by the runtime to drop a choice that
// names a tool it does not declare).
function toolChoiceNames(settings) {
  const tc = get(settings, 'tool_choice');
  return tc ? get(tc, 'names', []) : [];
}

// ---------------------------------------------------------------- anthropic

// Puts a cache_control marker on the last block of a message that may carry one (not on
// thinking, nor on a verbatim value that is no object).
function markLastBlock(message, marker) {
  const content = message.content;
  for (let i = content.length - 1; i >= 0; i--) {
    const block = content[i];
    if (typeof block !== 'object' || block === null || Array.isArray(block)) continue;
    const type = block instanceof Map ? block.get('type') : block.type;
    if (type === 'thinking' || type === 'redacted_thinking') continue;
    if (block instanceof Map) {
      const copy = new Map(block);
      copy.set('cache_control', marker);
      content[i] = copy;
    } else {
      content[i] = { ...block, cache_control: marker };
    }
    return;
  }
}

const anthropic = {
  name: 'anthropic',

  part(p) {
    switch (p.kind) {
      case 'text':
        return { type: 'text', text: p.text };
      case 'thinking':
        if (p.redacted) return { type: 'redacted_thinking', data: p.text };
        return { type: 'thinking', thinking: p.text, signature: p.signature };
      case 'call':
        return { type: 'tool_use', id: p.id, name: p.name, input: p.args === null ? {} : p.args };
      case 'response': {
        const r = p.response;
        const content = typeof r === 'string' || Array.isArray(r) ? r : stringify(r);
        return {
          type: 'tool_result',
          tool_use_id: p.id,
          content,
          is_error: p.isError ? true : undefined,
        };
      }
      case 'image':
        if (p.url !== undefined) return { type: 'image', source: { type: 'url', url: p.url } };
        return { type: 'image', source: { type: 'base64', media_type: p.mime, data: p.data } };
      case 'opaque':
        if (p.dialect === 'anthropic') return p.value;
        return { type: 'text', text: stringify(p.value) };
    }
    throw new Error(`unknown part kind ${p.kind}`);
  },

  // Every content is a block list (never the one-string short form), tool results first.
  message(msg) {
    const role = { user: 'user', model: 'assistant', system: 'system' }[msg.role];
    const ordered = msg.role === 'user' ? [...responses(msg), ...others(msg)] : msg.parts;
    return { role, content: ordered.map((p) => anthropic.part(p)) };
  },

  tool(t) {
    return {
      name: t.name,
      description: t.description,
      input_schema: t.parameters === undefined ? { type: 'object', properties: {} } : t.parameters,
    };
  },

  settings(s) {
    const out = [];
    const put = (k, v) => v !== undefined && out.push([k, v]);
    put('model', get(s, 'model'));
    put('max_tokens', get(s, 'max_output_tokens'));
    put('temperature', get(s, 'temperature'));
    put('top_p', get(s, 'top_p'));
    put('top_k', get(s, 'top_k'));
    put('stop_sequences', get(s, 'stop'));
    const th = get(s, 'thinking');
    if (th && (th.has('mode') || th.has('budget_tokens'))) {
      put('thinking', { type: get(th, 'mode', 'enabled'), budget_tokens: get(th, 'budget_tokens') });
    }
    const tc = get(s, 'tool_choice');
    if (tc) {
      const mode = get(tc, 'mode');
      if (mode === 'tool') put('tool_choice', { type: 'tool', name: get(tc, 'names', [])[0] });
      else put('tool_choice', { type: mode === 'required' ? 'any' : mode });
    }
    const os = get(s, 'output_schema');
    if (os) put('output_format', { type: 'json_schema', schema: get(os, 'schema') });
    out.push(...extraFields(s, 'anthropic', ['system', 'tools']));
    return out;
  },

  // Cache markers: the last system block, the last markable block of the last message (a
  // rolling breakpoint that each later request moves forward) and, in a child, the end of
  // the history it inherited, so that the entry written there outlives its own task.
  mark(body, inheritedEnd) {
    const marker = { type: 'ephemeral' };
    const system = body.get('system');
    if (system && system.length) system[system.length - 1].cache_control = marker;
    const messages = body.get('messages');
    if (messages.length) markLastBlock(messages[messages.length - 1], marker);
    if (inheritedEnd !== undefined && inheritedEnd >= 0 && inheritedEnd < messages.length - 1) {
      markLastBlock(messages[inheritedEnd], marker);
    }
  },

  body(req) {
    const body = new Map(this.settings(req.settings));
    if (req.system.length) body.set('system', req.system.map((text) => ({ type: 'text', text })));
    if (req.tools.length) body.set('tools', req.tools.map(this.tool));
    body.set('messages', withCallIds(req.messages).map(this.message));
    this.mark(body, req.inheritedEnd);
    return body;
  },
};

// ---------------------------------------------------------------- openai

const openai = {
  name: 'openai',

  contentPart(p) {
    switch (p.kind) {
      case 'text':
        return { type: 'text', text: p.text };
      case 'thinking':
        return { type: 'text', text: p.text };
      case 'image':
        // Image detail is never sent: the runtime lets the provider choose.
        return {
          type: 'image_url',
          image_url: { url: p.url !== undefined ? p.url : `data:${p.mime};base64,${p.data}` },
        };
      case 'opaque':
        if (p.dialect === 'openai') return p.value;
        return { type: 'text', text: stringify(p.value) };
      case 'call':
        return { type: 'text', text: stringify(p.args) };
    }
    throw new Error(`unknown part kind ${p.kind}`);
  },

  // One neutral message -> one or more chat messages.
  messages(msg) {
    if (msg.role === 'model') {
      // Thinking is not sent back: chat completions has no field for it.
      const content = msg.parts.filter((p) => !['call', 'thinking', 'response'].includes(p.kind));
      const toolCalls = calls(msg).map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: stringify(c.args) },
      }));
      let rendered;
      if (content.length === 1 && content[0].kind === 'text') rendered = content[0].text;
      else if (content.length) rendered = content.map((p) => openai.contentPart(p));
      else rendered = toolCalls.length ? null : '';
      const out = { role: 'assistant', content: rendered };
      if (toolCalls.length) out.tool_calls = toolCalls;
      return [out];
    }
    const out = responses(msg).map((r) => ({
      role: 'tool',
      tool_call_id: r.id,
      content: responseText(r.response),
    }));
    const rest = others(msg);
    if (msg.role === 'system') {
      const content =
        rest.length === 1 && rest[0].kind === 'text' ? rest[0].text : rest.map(openai.contentPart);
      out.push({ role: 'system', content });
    } else if (rest.length) {
      // User content is always a part list, even for one text.
      out.push({ role: 'user', content: rest.map((p) => openai.contentPart(p)) });
    }
    return out;
  },

  tool(t) {
    return {
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    };
  },

  settings(s) {
    const out = [];
    const put = (k, v) => v !== undefined && out.push([k, v]);
    put('model', get(s, 'model'));
    put('max_completion_tokens', get(s, 'max_output_tokens'));
    put('temperature', get(s, 'temperature'));
    put('top_p', get(s, 'top_p'));
    put('stop', get(s, 'stop'));
    put('reasoning_effort', get(get(s, 'thinking'), 'effort'));
    const tc = get(s, 'tool_choice');
    if (tc) {
      const mode = get(tc, 'mode');
      const names = get(tc, 'names', []);
      if (mode === 'tool') put('tool_choice', { type: 'function', function: { name: names[0] } });
      else if (names.length && mode !== 'none') {
        put('tool_choice', {
          type: 'allowed_tools',
          allowed_tools: {
            mode,
            tools: names.map((name) => ({ type: 'function', function: { name } })),
          },
        });
      } else put('tool_choice', mode);
    }
    const os = get(s, 'output_schema');
    if (os) {
      put('response_format', {
        type: 'json_schema',
        json_schema: { name: get(os, 'name', 'output'), schema: get(os, 'schema'), strict: get(os, 'strict') },
      });
    }
    out.push(...extraFields(s, 'openai', ['tools', 'system_messages']));
    return out;
  },

  body(req) {
    const body = new Map(this.settings(req.settings));
    if (req.tools.length) body.set('tools', req.tools.map(this.tool));
    const messages = req.system.map((text) => ({ role: 'system', content: text }));
    for (const msg of withCallIds(req.messages)) messages.push(...this.messages(msg));
    body.set('messages', messages);
    return body;
  },
};

// ---------------------------------------------------------------- gemini

const gemini = {
  name: 'gemini',

  part(p) {
    switch (p.kind) {
      case 'text':
        return { text: p.text };
      case 'thinking':
        return { text: p.text, thought: true, thoughtSignature: p.redacted ? undefined : p.signature };
      case 'call':
        return { functionCall: { id: p.id, name: p.name, args: p.args }, thoughtSignature: p.signature };
      case 'response': {
        const r = p.response;
        let response = r instanceof Map ? r : new Map([['output', r]]);
        if (p.isError) response = new Map([['error', r]]);
        return { functionResponse: { id: p.id, name: p.name, response } };
      }
      case 'image':
        // Image detail (mediaResolution) is never sent.
        if (p.url !== undefined) return { fileData: { mimeType: p.mime, fileUri: p.url } };
        return { inlineData: { mimeType: p.mime, data: p.data } };
      case 'opaque':
        if (p.dialect === 'gemini') return p.value;
        return { text: stringify(p.value) };
    }
    throw new Error(`unknown part kind ${p.kind}`);
  },

  content(msg) {
    return { role: msg.role === 'model' ? 'model' : 'user', parts: msg.parts.map(gemini.part) };
  },

  tool(t) {
    return { name: t.name, description: t.description, parameters: t.parameters };
  },

  generationConfig(s) {
    const g = new Map();
    const put = (k, v) => v !== undefined && g.set(k, v);
    put('temperature', get(s, 'temperature'));
    put('topP', get(s, 'top_p'));
    put('topK', get(s, 'top_k'));
    put('maxOutputTokens', get(s, 'max_output_tokens'));
    put('stopSequences', get(s, 'stop'));
    const os = get(s, 'output_schema');
    if (os) {
      put('responseMimeType', 'application/json');
      put('responseSchema', get(os, 'schema'));
    }
    const th = get(s, 'thinking');
    if (th) {
      const tc = new Map();
      const mode = get(th, 'mode');
      let budget = get(th, 'budget_tokens');
      if (budget === undefined && mode === 'disabled') budget = 0;
      if (budget === undefined && mode === 'adaptive') budget = -1;
      if (th.has('include_thoughts')) tc.set('includeThoughts', th.get('include_thoughts'));
      if (budget !== undefined) tc.set('thinkingBudget', budget);
      if (th.has('effort')) tc.set('thinkingLevel', th.get('effort'));
      if (tc.size) g.set('thinkingConfig', tc);
    }
    const leftovers = get(get(get(s, 'extra'), 'gemini'), 'generationConfig');
    if (leftovers instanceof Map) for (const [k, v] of leftovers) g.set(k, v);
    return g;
  },

  toolConfig(s) {
    const tc = get(s, 'tool_choice');
    if (!tc) return undefined;
    const mode = get(tc, 'mode');
    const names = get(tc, 'names', []);
    const fcc = new Map([['mode', { auto: 'AUTO', none: 'NONE', required: 'ANY', tool: 'ANY' }[mode]]]);
    if (mode === 'tool') fcc.set('allowedFunctionNames', names.slice(0, 1));
    else if (names.length && mode !== 'none') fcc.set('allowedFunctionNames', names);
    const out = new Map([['functionCallingConfig', fcc]]);
    const leftovers = get(get(get(s, 'extra'), 'gemini'), 'toolConfig');
    if (leftovers instanceof Map) for (const [k, v] of leftovers) out.set(k, v);
    return out;
  },

  body(req) {
    // This runtime writes the configuration first, then the cached head, then the turns.
    const body = new Map();
    const g = this.generationConfig(req.settings);
    if (g.size) body.set('generationConfig', g);
    const toolConfig = this.toolConfig(req.settings);
    if (toolConfig) body.set('toolConfig', toolConfig);
    if (req.system.length) body.set('systemInstruction', { parts: req.system.map((text) => ({ text })) });
    if (req.tools.length) body.set('tools', [{ functionDeclarations: req.tools.map(this.tool) }]);
    body.set('contents', req.messages.map(this.content));
    const reserved = ['tools', 'toolConfig', 'generationConfig', 'declarations', 'systemInstruction'];
    for (const [k, v] of extraFields(req.settings, 'gemini', reserved)) body.set(k, v);
    return body;
  },
};

const DIALECTS = { anthropic, openai, gemini };

function render(dialect, req) {
  const d = DIALECTS[dialect];
  if (!d) throw new Error(`unknown dialect ${JSON.stringify(dialect)}`);
  return stringify(d.body(req));
}

module.exports = { render, DIALECTS: Object.keys(DIALECTS), toolChoiceNames };
