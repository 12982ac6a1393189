import { Fragment, type ReactNode } from 'react';

// Agents answer in Markdown-ish text. Only what matters for reading is rendered: fenced code blocks,
// inline code and links. Everything else stays as typed (white-space: pre-wrap); never raw HTML.

const FENCE = /```[^\n]*\n([\s\S]*?)(?:```|$)/g;
const INLINE = /(`[^`\n]+`|https?:\/\/[^\s<>"'`)\]]+)/g;

function inline(text: string, keyBase: string): ReactNode[] {
  return text.split(INLINE).map((part, i) => {
    const key = `${keyBase}-${i}`;
    if (part.startsWith('`') && part.endsWith('`') && part.length > 2) return <code key={key}>{part.slice(1, -1)}</code>;
    if (/^https?:\/\//.test(part)) {
      // Trailing punctuation belongs to the sentence, not the link.
      const url = part.replace(/[.,;:!?]+$/, '');
      return (
        <Fragment key={key}>
          <a href={url} target="_blank" rel="noopener noreferrer">
            {url}
          </a>
          {part.slice(url.length)}
        </Fragment>
      );
    }
    return <Fragment key={key}>{part}</Fragment>;
  });
}

export function MessageText({ text }: { text: string }) {
  const nodes: ReactNode[] = [];
  let last = 0;
  // The blank lines around a code block are Markdown syntax; the block's own margin replaces them.
  const prose = (from: number, to: number) => {
    let part = text.slice(from, to);
    if (from > 0) part = part.replace(/^\n+/, '');
    if (to < text.length) part = part.replace(/\n+$/, '');
    if (part) nodes.push(<span key={`t${from}`}>{inline(part, `t${from}`)}</span>);
  };
  for (const match of text.matchAll(FENCE)) {
    const start = match.index;
    prose(last, start);
    nodes.push(
      <pre key={`c${start}`} className="code-block">
        <code>{match[1]?.replace(/\n$/, '')}</code>
      </pre>,
    );
    last = start + match[0].length;
  }
  prose(last, text.length);
  return <div className="message-text">{nodes}</div>;
}
