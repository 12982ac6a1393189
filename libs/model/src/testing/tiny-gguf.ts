import { writeFile } from 'node:fs/promises';

// A tiny, valid llama-architecture GGUF (v3) for tests of the local-gguf provider: ~177 KB, loads and
// generates in well under a second on one CPU thread, and is the same file byte for byte on every run.
//
// It knows nothing, but it is built so that grammar-forced JSON finishes quickly: dimension 0 of every
// token embedding is a constant that no layer writes to, so after the final RMSNorm it is still a constant
// and column 0 of output.weight acts as a per-token logit bias (the "token preferences" below). Quotes and
// closing braces are preferred, so strings and objects close within a few dozen tokens; byte-fallback and
// control tokens are avoided, so nothing unprintable comes out.

const GGUF_MAGIC = 0x46554747; // "GGUF", little-endian
const GGUF_VERSION = 3;
const ALIGNMENT = 32;
const GGML_TYPE_F32 = 0;

/** gguf_type: the type tags of metadata values. */
const ValueType = { UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7, STRING: 8, ARRAY: 9 } as const;

/** llama_token_type: tokenizer.ggml.token_type values. */
const TokenType = { NORMAL: 1, UNKNOWN: 2, CONTROL: 3, BYTE: 6 } as const;

type MetadataValue =
  | { type: typeof ValueType.UINT32 | typeof ValueType.INT32 | typeof ValueType.FLOAT32; value: number }
  | { type: typeof ValueType.BOOL; value: boolean }
  | { type: typeof ValueType.STRING; value: string }
  | { type: typeof ValueType.ARRAY; element: typeof ValueType.STRING; value: string[] }
  | { type: typeof ValueType.ARRAY; element: typeof ValueType.INT32 | typeof ValueType.FLOAT32; value: number[] };

const u32 = (value: number): MetadataValue => ({ type: ValueType.UINT32, value });
const f32 = (value: number): MetadataValue => ({ type: ValueType.FLOAT32, value });
const bool = (value: boolean): MetadataValue => ({ type: ValueType.BOOL, value });
const str = (value: string): MetadataValue => ({ type: ValueType.STRING, value });
const strings = (value: string[]): MetadataValue => ({ type: ValueType.ARRAY, element: ValueType.STRING, value });
const int32s = (value: number[]): MetadataValue => ({ type: ValueType.ARRAY, element: ValueType.INT32, value });
const float32s = (value: number[]): MetadataValue => ({ type: ValueType.ARRAY, element: ValueType.FLOAT32, value });

export interface TinyGgufOptions {
  /** Seed of the pseudo-random weights. Default 1234. */
  seed?: number;
  nEmbd?: number;
  nLayer?: number;
  nHead?: number;
  nHeadKv?: number;
  nFf?: number;
  /** llama.context_length: the context the model says it was trained for. Default 512. */
  contextLength?: number;
  /** general.architecture; anything but 'llama' makes a file llama.cpp refuses to load. */
  architecture?: string;
}

export interface TinyGgufInfo {
  path: string;
  bytes: number;
  vocabSize: number;
  tensorCount: number;
}

/** A little-endian byte buffer that grows as it is written. */
class ByteWriter {
  private buffer = Buffer.alloc(1 << 16);
  private length = 0;

  private reserve(size: number): number {
    if (this.length + size > this.buffer.length) {
      let capacity = this.buffer.length * 2;
      while (capacity < this.length + size) capacity *= 2;
      const grown = Buffer.alloc(capacity);
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    const at = this.length;
    this.length += size;
    return at;
  }

  // Each writer reserves first: reserving may replace this.buffer.
  u8(value: number): void {
    const at = this.reserve(1);
    this.buffer.writeUInt8(value, at);
  }
  u32(value: number): void {
    const at = this.reserve(4);
    this.buffer.writeUInt32LE(value, at);
  }
  i32(value: number): void {
    const at = this.reserve(4);
    this.buffer.writeInt32LE(value, at);
  }
  u64(value: number): void {
    const at = this.reserve(8);
    this.buffer.writeBigUInt64LE(BigInt(value), at);
  }
  f32(value: number): void {
    const at = this.reserve(4);
    this.buffer.writeFloatLE(value, at);
  }
  bytes(data: Uint8Array): void {
    const at = this.reserve(data.length);
    this.buffer.set(data, at);
  }
  /** GGUF strings: a u64 byte length, then UTF-8 without a terminator. */
  string(value: string): void {
    const data = Buffer.from(value, 'utf8');
    this.u64(data.length);
    this.bytes(data);
  }
  /** Zeros up to the next multiple of `alignment` (the buffer starts zeroed). */
  pad(alignment: number): void {
    const rest = this.length % alignment;
    if (rest !== 0) this.reserve(alignment - rest);
  }
  result(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

// ---- vocabulary ------------------------------------------------------------------------------------------

interface Vocabulary {
  tokens: string[];
  types: number[];
  scores: number[];
}

const UNK_ID = 0;
const BOS_ID = 1;
const EOS_ID = 2;
/** SentencePiece writes a space as U+2581. */
const SPM_SPACE = '\u2581';

/**
 * A character-level SentencePiece ("llama") vocabulary: <unk>, <s>, </s>, the 256 byte-fallback tokens
 * (llama.cpp needs <0x0A> for its newline id), the SPM space and every printable ASCII character, then a
 * few multi-character pieces (JSON keys, tool names) so that grammar-forced JSON takes fewer tokens.
 */
function buildVocabulary(): Vocabulary {
  const vocabulary: Vocabulary = { tokens: [], types: [], scores: [] };
  const add = (piece: string, type: number, score = 0): void => {
    vocabulary.tokens.push(piece);
    vocabulary.types.push(type);
    vocabulary.scores.push(score);
  };
  add('<unk>', TokenType.UNKNOWN);
  add('<s>', TokenType.CONTROL);
  add('</s>', TokenType.CONTROL);
  for (let byte = 0; byte < 256; byte++) add(`<0x${byte.toString(16).toUpperCase().padStart(2, '0')}>`, TokenType.BYTE);
  add(SPM_SPACE, TokenType.NORMAL, -1);
  for (let code = 0x21; code <= 0x7e; code++) add(String.fromCharCode(code), TokenType.NORMAL, -1);
  for (const piece of [
    '"name"',
    '"arguments"',
    'lookup',
    'report_done',
    SPM_SPACE + SPM_SPACE,
    '{}',
    '":',
    '",',
    `"${SPM_SPACE}`,
  ]) {
    add(piece, TokenType.NORMAL, -2);
  }
  return vocabulary;
}

/** The logit bias built into the output layer for one token. */
function tokenPreference(piece: string, type: number, id: number): number {
  if (id === EOS_ID) return 0; // plain completions run to maxTokens unless EOS happens to be sampled
  if (type !== TokenType.NORMAL) return -12; // <unk>, <s>, byte fallback: never sampled in practice
  if (piece === '"') return 7;
  if (piece === '}') return 6;
  if (piece === ']') return 5;
  if (piece.length > 1) return 3;
  if ('{:,['.includes(piece)) return 3;
  if (/^[0-9]$/.test(piece)) return 2;
  if (/^[a-z_]$/.test(piece)) return 1.5;
  if (piece === SPM_SPACE) return -1;
  return 0;
}

// ---- weights ---------------------------------------------------------------------------------------------

/** mulberry32: a small seeded PRNG, so that the file is the same on every run. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Irwin–Hall approximation of a standard normal sample. */
function gaussian(random: () => number): () => number {
  return () => {
    let sum = 0;
    for (let i = 0; i < 4; i++) sum += random();
    return (sum - 2) * Math.sqrt(3);
  };
}

interface Tensor {
  name: string;
  /** ggml order: dims[0] is the length of a contiguous row. */
  dims: number[];
  data: Float32Array;
}

interface Shape {
  nEmbd: number;
  nLayer: number;
  nHeadKv: number;
  headDim: number;
  nFf: number;
  nVocab: number;
}

/** The value of embedding dimension 0 for every token (see the file comment). */
const CONSTANT_DIMENSION_VALUE = 4;

function buildTensors(shape: Shape, preferences: number[], seed: number): Tensor[] {
  const { nEmbd, nLayer, nHeadKv, headDim, nFf, nVocab } = shape;
  const normal = gaussian(mulberry32(seed));
  const tensors: Tensor[] = [];
  const matrix = (name: string, rowLength: number, rows: number, std: number, adjust?: (data: Float32Array) => void): void => {
    const data = new Float32Array(rowLength * rows);
    for (let i = 0; i < data.length; i++) data[i] = normal() * std;
    adjust?.(data);
    tensors.push({ name, dims: [rowLength, rows], data });
  };
  const ones = (name: string, length: number): void => {
    tensors.push({ name, dims: [length], data: new Float32Array(length).fill(1) });
  };
  // Output row 0 of a projection lives in its first `inputs` values: zero means it never writes dimension 0.
  const neverWriteDimensionZero = (inputs: number) => (data: Float32Array) => data.fill(0, 0, inputs);
  const setColumnZero = (rowLength: number, value: (row: number) => number) => (data: Float32Array) => {
    for (let row = 0; row < nVocab; row++) data[row * rowLength] = value(row);
  };
  const nEmbdKv = headDim * nHeadKv;
  const std = 1 / Math.sqrt(nEmbd);

  matrix(
    'token_embd.weight',
    nEmbd,
    nVocab,
    1,
    setColumnZero(nEmbd, () => CONSTANT_DIMENSION_VALUE),
  );
  ones('output_norm.weight', nEmbd);
  matrix(
    'output.weight',
    nEmbd,
    nVocab,
    std,
    setColumnZero(nEmbd, (row) => (preferences[row] ?? 0) / 3),
  );
  for (let layer = 0; layer < nLayer; layer++) {
    ones(`blk.${layer}.attn_norm.weight`, nEmbd);
    matrix(`blk.${layer}.attn_q.weight`, nEmbd, nEmbd, std);
    matrix(`blk.${layer}.attn_k.weight`, nEmbd, nEmbdKv, std);
    matrix(`blk.${layer}.attn_v.weight`, nEmbd, nEmbdKv, std);
    matrix(`blk.${layer}.attn_output.weight`, nEmbd, nEmbd, std, neverWriteDimensionZero(nEmbd));
    ones(`blk.${layer}.ffn_norm.weight`, nEmbd);
    matrix(`blk.${layer}.ffn_gate.weight`, nEmbd, nFf, std);
    matrix(`blk.${layer}.ffn_up.weight`, nEmbd, nFf, std);
    matrix(`blk.${layer}.ffn_down.weight`, nFf, nEmbd, 1 / Math.sqrt(nFf), neverWriteDimensionZero(nFf));
  }
  return tensors;
}

// ---- file sections ---------------------------------------------------------------------------------------

function metadataOf(
  shape: Shape & { nHead: number; contextLength: number; architecture: string },
  vocabulary: Vocabulary,
): [string, MetadataValue][] {
  return [
    ['general.architecture', str(shape.architecture)],
    ['general.name', str('tiny-random-llama')],
    ['general.alignment', u32(ALIGNMENT)],
    ['general.file_type', u32(0)], // all F32
    ['llama.context_length', u32(shape.contextLength)],
    ['llama.embedding_length', u32(shape.nEmbd)],
    ['llama.block_count', u32(shape.nLayer)],
    ['llama.feed_forward_length', u32(shape.nFf)],
    ['llama.attention.head_count', u32(shape.nHead)],
    ['llama.attention.head_count_kv', u32(shape.nHeadKv)],
    ['llama.attention.layer_norm_rms_epsilon', f32(1e-5)],
    ['llama.rope.dimension_count', u32(shape.headDim)],
    ['llama.rope.freq_base', f32(10000)],
    ['llama.vocab_size', u32(shape.nVocab)],
    ['tokenizer.ggml.model', str('llama')],
    ['tokenizer.ggml.tokens', strings(vocabulary.tokens)],
    ['tokenizer.ggml.scores', float32s(vocabulary.scores)],
    ['tokenizer.ggml.token_type', int32s(vocabulary.types)],
    ['tokenizer.ggml.bos_token_id', u32(BOS_ID)],
    ['tokenizer.ggml.eos_token_id', u32(EOS_ID)],
    ['tokenizer.ggml.unknown_token_id', u32(UNK_ID)],
    ['tokenizer.ggml.add_bos_token', bool(true)],
    ['tokenizer.ggml.add_eos_token', bool(false)],
    ['tokenizer.ggml.add_space_prefix', bool(false)],
  ];
}

function writeScalar(writer: ByteWriter, type: number, value: number | boolean | string): void {
  if (type === ValueType.STRING && typeof value === 'string') writer.string(value);
  else if (type === ValueType.BOOL && typeof value === 'boolean') writer.u8(value ? 1 : 0);
  else if (type === ValueType.UINT32 && typeof value === 'number') writer.u32(value);
  else if (type === ValueType.INT32 && typeof value === 'number') writer.i32(value);
  else if (type === ValueType.FLOAT32 && typeof value === 'number') writer.f32(value);
  else throw new Error(`tiny GGUF: cannot write a ${typeof value} as GGUF type ${type}`);
}

function writeMetadataEntry(writer: ByteWriter, key: string, entry: MetadataValue): void {
  writer.string(key);
  writer.u32(entry.type);
  if (entry.type !== ValueType.ARRAY) {
    writeScalar(writer, entry.type, entry.value);
    return;
  }
  writer.u32(entry.element);
  writer.u64(entry.value.length);
  for (const item of entry.value) writeScalar(writer, entry.element, item);
}

function writeHeader(writer: ByteWriter, tensorCount: number, metadataCount: number): void {
  writer.u32(GGUF_MAGIC);
  writer.u32(GGUF_VERSION);
  writer.u64(tensorCount);
  writer.u64(metadataCount);
}

const alignUp = (size: number): number => Math.ceil(size / ALIGNMENT) * ALIGNMENT;

/** Name, dimensions, type and offset (relative to the data section) of each tensor. */
function writeTensorInfos(writer: ByteWriter, tensors: Tensor[]): void {
  let offset = 0;
  for (const tensor of tensors) {
    writer.string(tensor.name);
    writer.u32(tensor.dims.length);
    for (const dim of tensor.dims) writer.u64(dim);
    writer.u32(GGML_TYPE_F32);
    writer.u64(offset);
    offset += alignUp(tensor.data.byteLength);
  }
}

/** The data section starts aligned, and so does every tensor in it. */
function writeTensorData(writer: ByteWriter, tensors: Tensor[]): void {
  writer.pad(ALIGNMENT);
  for (const tensor of tensors) {
    writer.bytes(new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength));
    writer.pad(ALIGNMENT);
  }
}

/** Writes the tiny model to `path`; the same options always give the same bytes. */
export async function writeTinyGguf(path: string, options: TinyGgufOptions = {}): Promise<TinyGgufInfo> {
  const {
    seed = 1234,
    nEmbd = 32,
    nLayer = 2,
    nHead = 4,
    nHeadKv = 2,
    nFf = 64,
    contextLength = 512,
    architecture = 'llama',
  } = options;
  if (nEmbd % nHead !== 0) throw new Error('tiny GGUF: nEmbd must be a multiple of nHead');
  const vocabulary = buildVocabulary();
  const shape = { nEmbd, nLayer, nHead, nHeadKv, headDim: nEmbd / nHead, nFf, nVocab: vocabulary.tokens.length, contextLength };
  const metadata = metadataOf({ ...shape, architecture }, vocabulary);
  const preferences = vocabulary.tokens.map((piece, id) => tokenPreference(piece, vocabulary.types[id] ?? 0, id));
  const tensors = buildTensors(shape, preferences, seed);

  const writer = new ByteWriter();
  writeHeader(writer, tensors.length, metadata.length);
  for (const [key, entry] of metadata) writeMetadataEntry(writer, key, entry);
  writeTensorInfos(writer, tensors);
  writeTensorData(writer, tensors);

  const bytes = writer.result();
  await writeFile(path, bytes);
  return { path, bytes: bytes.length, vocabSize: vocabulary.tokens.length, tensorCount: tensors.length };
}
