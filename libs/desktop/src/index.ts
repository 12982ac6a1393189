export {
  NumberedPage,
  renderObservation,
  StaleElementError,
  ElementNotFoundError,
  ElementNotInteractableError,
  type NumberedPageOptions,
} from './browser/numbered-page.js';
export type { ObservedElement, ObservedPage } from './browser/page-script.js';
