/** Where the journeys' global setup leaves the endpoint of the Chromium every journey file connects to. */
export const SHARED_BROWSER_ENV = 'HIVEWATCH_E2E_BROWSER_WS';
