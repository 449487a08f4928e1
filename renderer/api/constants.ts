/** Where the browser shell's token lives once the page took it from `?token=`. */
export const TOKEN_STORAGE_KEY = 'hivewatch.token';
