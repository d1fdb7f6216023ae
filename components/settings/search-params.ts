import { parseAsString } from 'nuqs/server';

/** The settings page's URL state: the address agents reach this server at, when it is not the page's own. */
export const settingsSearchParams = {
  server: parseAsString,
};
