// The purposes of SecretBox ciphers: each gets its own key derived from the vault key (the HKDF info is
// 'lazyboy:<purpose>'), so a cipher of one kind never opens as another. Every sealed column names one
// (sealed-columns.repository.ts).

/** Model API keys, agents' and workspaces' alike. */
export const MODEL_KEYS_PURPOSE = 'model-keys';
/** The per-computer control tokens the API keeps for its workers. */
export const COMPUTER_TOKEN_PURPOSE = 'computer-control-token';
/** Saved logins: password, TOTP secret and notes of one vault account. */
export const VAULT_ACCOUNTS_PURPOSE = 'vault-accounts';
