/** Every string the web app shows, in Traditional Chinese (the default locale). */
export const zhTW = {
  appName: 'LazyBoy',
  tagline: '給 Agent 一台真的電腦',
  serviceStatus: '服務狀態',
  ready: '一切就緒',
  notReady: '尚未就緒：',
  apiUnreachable: '連不到 API',
} as const;

export type Messages = { [K in keyof typeof zhTW]: string };
