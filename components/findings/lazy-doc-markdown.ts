'use client';

import { lazy } from 'react';

// react-markdown and its parser load when a doc is first opened, not with the findings page; a panel starts the
// load as it mounts, so the chunk comes in while the doc is fetched rather than after.
export const loadDocMarkdown = () => import('./doc-markdown');
export const LazyDocMarkdown = lazy(loadDocMarkdown);
