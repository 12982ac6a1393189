import { SharedVaultSettings } from '../../../../components/vault/shared-vault-settings';

export default function SharedVaultPage() {
  return <SharedVaultSettings />;
}
