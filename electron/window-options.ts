import type { BrowserWindowConstructorOptions } from 'electron';
import { DEFAULT_SIZE, MIN_SIZE, type WindowState } from './window-state';

export { isAppUrl } from './navigation';

/** Renderer isolation shared by every PennyPost window: the page is untrusted web content. */
const ISOLATED = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  webviewTag: false,
  navigateOnDragDrop: false,
  spellcheck: true,
} as const;

export interface MainWindowExtras {
  /** Where and how big (from window-state.ts placeWindow). */
  bounds?: Pick<WindowState, 'x' | 'y' | 'width' | 'height'>;
  icon?: string;
  /** Passed to the preload in process.argv (the app version). */
  additionalArguments?: string[];
}

/** The window PennyPost opens: the renderer is an untrusted web page talking HTTP to /api. */
export function mainWindowOptions(preloadPath: string, extras: MainWindowExtras = {}): BrowserWindowConstructorOptions {
  const bounds: MainWindowExtras['bounds'] & object = extras.bounds ?? { ...DEFAULT_SIZE };
  return {
    ...(bounds.x !== undefined && bounds.y !== undefined ? { x: bounds.x, y: bounds.y } : {}),
    width: bounds.width,
    height: bounds.height,
    minWidth: MIN_SIZE.width,
    minHeight: MIN_SIZE.height,
    title: 'PennyPost',
    show: false,
    backgroundColor: '#ffffff',
    ...(extras.icon ? { icon: extras.icon } : {}),
    webPreferences: {
      ...ISOLATED,
      preload: preloadPath,
      ...(extras.additionalArguments ? { additionalArguments: extras.additionalArguments } : {}),
    },
  };
}

/** The start-error window: a static page, no preload, no scripts. */
export function errorWindowOptions(title: string, icon?: string): BrowserWindowConstructorOptions {
  return {
    width: 620,
    height: 420,
    resizable: true,
    minimizable: false,
    maximizable: false,
    fullscreenable: false,
    title,
    show: false,
    ...(icon ? { icon } : {}),
    webPreferences: { ...ISOLATED, javascript: false },
  };
}
