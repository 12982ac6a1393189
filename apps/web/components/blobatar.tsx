import type { AgentStatusKind } from '../lib/agent-status';

// An agent's face: a soft blob with two eyes, drawn from its avatarSeed alone, so it looks the same in
// every list and on every device. A pure function of (seed, size, status): no hooks, no ids, no randomness
// beyond the seed. The status moves the eyes; globals.css animates blinking for the calm states.

export interface BlobatarProps {
  seed: string;
  size?: number;
  status?: AgentStatusKind;
  className?: string;
}

/** FNV-1a: small, fast, and spreads similar seeds ("agent-1", "agent-2") far apart. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: a deterministic stream of [0, 1) numbers from one 32-bit seed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const round = (n: number) => Math.round(n * 100) / 100;

/** A closed, smooth outline through the points (Catmull-Rom turned into cubic Béziers). */
function smoothPath(points: readonly [number, number][]): string {
  const n = points.length;
  const at = (i: number) => points[((i % n) + n) % n]!;
  let d = `M${round(at(0)[0])},${round(at(0)[1])}`;
  for (let i = 0; i < n; i++) {
    const [x0, y0] = at(i - 1);
    const [x1, y1] = at(i);
    const [x2, y2] = at(i + 1);
    const [x3, y3] = at(i + 2);
    const c1x = x1 + (x2 - x0) / 6;
    const c1y = y1 + (y2 - y0) / 6;
    const c2x = x2 - (x3 - x1) / 6;
    const c2y = y2 - (y3 - y1) / 6;
    d += ` C${round(c1x)},${round(c1y)} ${round(c2x)},${round(c2y)} ${round(x2)},${round(y2)}`;
  }
  return `${d} Z`;
}

/** The part of an ellipse above a horizontal cut `lid` (0–1) of the way down from its top. */
function lidPath(cx: number, cy: number, rx: number, ry: number, lid: number): string {
  const y = cy - ry + 2 * ry * lid;
  const half = rx * Math.sqrt(Math.max(0, 1 - ((y - cy) / ry) ** 2));
  return `M${round(cx - half)},${round(y)} A${round(rx)},${round(ry)} 0 ${lid > 0.5 ? 1 : 0} 1 ${round(cx + half)},${round(y)} Z`;
}

interface Gaze {
  dx: number;
  dy: number;
  /** Eye size multiplier: wide open when the agent waits for you. */
  open: number;
  /** How much of each eye the lid covers from the top: heavy while the computer boots, lifting as it wakes. */
  lid: number;
}

const GAZE: Record<AgentStatusKind, Gaze> = {
  idle: { dx: 0, dy: 0.5, open: 1, lid: 0 },
  queued: { dx: -1, dy: 2.5, open: 0.95, lid: 0 },
  thinking: { dx: 2.2, dy: -2.6, open: 1, lid: 0 },
  booting: { dx: 0, dy: 1.8, open: 1, lid: 0.55 },
  waking: { dx: 0, dy: 1.2, open: 1, lid: 0.3 },
  acting: { dx: 3, dy: 0.8, open: 1.05, lid: 0 },
  waiting: { dx: 0, dy: 1.2, open: 1.2, lid: 0 },
};

export function Blobatar({ seed, size = 40, status = 'idle', className }: BlobatarProps) {
  const h = hash(seed);
  const rnd = random(h);
  const hue = h % 360;
  const lobes = 7 + Math.floor(rnd() * 3);
  const turn = rnd() * Math.PI * 2;
  const points: [number, number][] = [];
  for (let i = 0; i < lobes; i++) {
    const angle = turn + (i / lobes) * Math.PI * 2 + (rnd() - 0.5) * 0.35;
    const radius = 35 + rnd() * 11;
    // Slightly wider than tall: reads as a creature sitting, not a ball.
    points.push([50 + Math.cos(angle) * radius * 1.04, 52 + Math.sin(angle) * radius * 0.96]);
  }
  const saturation = 62 + Math.floor(rnd() * 22);
  const lightness = 62 + Math.floor(rnd() * 10);
  const body = `hsl(${hue} ${saturation}% ${lightness}%)`;
  const shade = `hsl(${hue} ${saturation - 8}% ${lightness - 18}%)`;
  const gaze = GAZE[status];
  const spread = 12 + rnd() * 4;
  const eyeY = 47 + rnd() * 5;
  const eyeR = (9.5 + rnd() * 3) * gaze.open;
  const pupilR = eyeR * 0.48;
  // Blinks start at different moments per agent, so a list of idle agents does not blink in unison.
  const blinkDelay = `${round(rnd() * 4)}s`;
  const eyes = [50 - spread, 50 + spread];
  return (
    <svg
      className={className ? `blobatar ${className}` : 'blobatar'}
      data-status={status}
      width={size}
      height={size}
      viewBox="0 0 100 100"
      aria-hidden="true"
      focusable="false"
    >
      <path d={smoothPath(points)} fill={body} stroke={shade} strokeWidth={2.5} />
      <ellipse cx={38} cy={30} rx={12} ry={7} fill="#fff" opacity={0.28} transform="rotate(-20 38 30)" />
      {eyes.map((cx) => (
        <g key={cx} className="blobatar-eye" style={{ animationDelay: blinkDelay }}>
          <ellipse cx={cx} cy={eyeY} rx={eyeR} ry={eyeR * 1.12} fill="#fff" stroke={shade} strokeWidth={1.2} />
          <circle className="blobatar-pupil" cx={cx + gaze.dx} cy={eyeY + gaze.dy} r={pupilR} fill="#1d1b24" />
          <circle cx={cx + gaze.dx + pupilR * 0.35} cy={eyeY + gaze.dy - pupilR * 0.4} r={pupilR * 0.3} fill="#fff" />
          {gaze.lid > 0 && <path d={lidPath(cx, eyeY, eyeR + 0.6, eyeR * 1.12 + 0.6, gaze.lid)} fill={shade} />}
        </g>
      ))}
    </svg>
  );
}
