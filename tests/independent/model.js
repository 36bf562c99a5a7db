'use strict';
// The runtime's own model of a conversation, read from the scenario JSON.

const { get } = require('./json');

function part(p) {
  const [kind] = [...p.keys()];
  const v = p.get(kind);
  switch (kind) {
    case 'text':
      return { kind: 'text', text: v };
    case 'function_call':
      return {
        kind: 'call',
        id: get(v, 'id'),
        name: get(v, 'name'),
        args: get(v, 'args'),
        signature: get(v, 'signature'),
      };
    case 'function_response':
      return {
        kind: 'response',
        id: get(v, 'id'),
        name: get(v, 'name'),
        response: get(v, 'response', null),
        isError: get(v, 'is_error') === true,
      };
    case 'thinking':
      return {
        kind: 'thinking',
        text: get(v, 'text'),
        signature: get(v, 'signature'),
        redacted: get(v, 'redacted') === true,
      };
    case 'image':
      return {
        kind: 'image',
        mime: get(v, 'mime_type'),
        data: get(v, 'data'),
        url: get(v, 'url'),
        detail: get(v, 'detail'),
      };
    case 'opaque':
      return { kind: 'opaque', type: get(v, 'kind'), value: get(v, 'value', null), dialect: get(v, 'dialect') };
  }
  throw new Error(`unknown part ${JSON.stringify(kind)}`);
}

const message = (m) => ({ role: get(m, 'role'), parts: get(m, 'parts', []).map(part) });

const tool = (t) => ({
  name: get(t, 'name'),
  description: get(t, 'description'),
  parameters: get(t, 'parameters'),
});

function scenario(s) {
  const preset = get(s, 'preset', new Map());
  const cont = get(s, 'continuation');
  return {
    id: get(s, 'id'),
    action: get(s, 'action'),
    forkTool: get(s, 'fork_tool', 'agent'),
    snapshot: get(s, 'snapshot', true) !== false,
    knownForkChild: get(s, 'known_fork_child', false) === true,
    directives: get(s, 'directives', []),
    prompt: get(s, 'prompt'),
    answer: get(s, 'answer', ''),
    system: get(preset, 'system', []),
    tools: get(preset, 'tools', []).map(tool),
    settings: get(preset, 'settings', new Map()),
    defaultTools: get(s, 'default_tools', []).map(tool),
    history: get(s, 'history', []).map(message),
    continuation: cont && {
      task: get(cont, 'task'),
      parentId: get(cont, 'parent_id'),
      toolFilter: get(cont, 'tool_filter'),
      persona: get(cont, 'persona'),
      outputTool: get(cont, 'output_tool') && tool(get(cont, 'output_tool')),
      outputSection: get(cont, 'output_section'),
      followUps: get(cont, 'follow_ups', []).map((f) => ({
        reply: message(get(f, 'reply')),
        message: message(get(f, 'message')),
      })),
    },
  };
}

module.exports = { scenario };
