// Greetings and small talk get a plain-text answer with no tools at all, so that "hi" never makes the
// agent list a home directory or boot a computer.

const LATIN_GREETING =
  /^(hi|hello|hey|yo|hiya|good (morning|afternoon|evening|night)|thanks|thank you|thx|ok|okay|bye|goodbye|see you|how are you|what'?s up)(?=$|[^\p{L}\p{N}])/iu;
// No word boundaries in CJK text: a greeting at the start is enough ("你好嗎").
const CJK_GREETING = /^(你好|您好|嗨|哈囉|哈啰|早安|午安|晚安|早|謝謝|谢谢|感謝|感谢|掰掰|再見|再见|在嗎|在吗)/u;
const TASK_HINT =
  /(https?:\/\/|\bwww\.|[./~][\w-]+\/|\.(com|org|net|tw|io)\b|\b(open|find|search|download|install|run|create|write|send|post|check|fix|build|click|book|buy|look up|go to)\b|打開|搜尋|查|下載|安裝|執行|建立|寫|寄|發|檢查|修|點|訂|買|幫我|請你)/iu;

/** True for a short greeting, thanks or pleasantry that asks for no work. */
export function isSmallTalk(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed.length === 0 || trimmed.length > 40) return false;
  return (LATIN_GREETING.test(trimmed) || CJK_GREETING.test(trimmed)) && !TASK_HINT.test(trimmed);
}
