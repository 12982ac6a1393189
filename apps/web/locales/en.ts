import type { Messages } from './zh-TW';

export const en: Messages = {
  appName: 'LazyBoy',
  tagline: 'Give your agents a real computer',
  serviceStatus: 'Service status',
  ready: 'All systems ready',
  notReady: 'Not ready: ',
  apiUnreachable: 'Cannot reach the API',
};
