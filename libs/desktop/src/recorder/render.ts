import type { ElementDescriptor, Recording, SemanticEvent } from './types.js';

/**
 * The recording as the model reads it when distilling a playbook: the goal, then one numbered line per
 * event. Frames are not described here; they go to the model as images (see selectKeyFrames).
 */
export function renderRecording(recording: Recording): string {
  const seconds = Math.round((Date.parse(recording.endedAt) - Date.parse(recording.startedAt)) / 1000);
  const lines = [
    `Goal: ${recording.goal}`,
    `Demonstrated in ${seconds} s: ${recording.events.length} events, ${recording.frames.length} key frames.`,
    'Events:',
  ];
  if (recording.events.length === 0) lines.push('(none)');
  const tabs = new Set(recording.events.map((event) => event.tab));
  recording.events.forEach((event, index) => {
    const tab = tabs.size > 1 ? `[tab ${event.tab}] ` : '';
    lines.push(`${index + 1}. ${tab}${describeEvent(event)}`);
  });
  return lines.join('\n');
}

function describeEvent(event: SemanticEvent): string {
  const where = `on ${page(event)}`;
  switch (event.kind) {
    case 'click': {
      const state = event.checked === undefined ? '' : event.checked ? ' (now checked)' : ' (now unchecked)';
      return `clicked ${control(event.target)}${state} ${where}`;
    }
    case 'input':
      if (event.redacted) {
        const kind = event.secret === 'password' ? 'password field' : 'secret field';
        return `filled ${kind} ${quote(event.target.name || event.target.hint)} (not recorded) ${where}`;
      }
      return event.value === ''
        ? `cleared ${control(event.target)} ${where}`
        : `typed ${quote(event.value ?? '')} into ${control(event.target)} ${where}`;
    case 'select':
      return event.redacted
        ? `chose an option in ${control(event.target)} (not recorded) ${where}`
        : `selected ${quote(event.label ?? '')} in ${control(event.target)} ${where}`;
    case 'submit':
      return `submitted ${control(event.form)}${event.submitter ? ` with ${control(event.submitter)}` : ''} ${where}`;
    case 'navigation':
      if (event.initial) return `started on ${page(event)}`;
      return `${event.spa ? 'the page changed to' : 'went to'} ${page(event)}`;
    case 'tab':
      return event.action === 'opened' ? 'opened a new tab' : `closed the tab (${event.url})`;
  }
}

function control(el: ElementDescriptor): string {
  const name = el.name ? ` ${quote(el.name)}` : '';
  const text = el.text && el.text !== el.name ? ` showing ${quote(el.text)}` : '';
  const hint = el.hint ? ` [${el.hint}]` : '';
  return `${el.role}${name}${text}${hint}`;
}

function page(event: SemanticEvent): string {
  return event.title ? `${event.title} (${event.url})` : event.url;
}

function quote(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > 120 ? `${flat.slice(0, 119)}…` : flat);
}
