import { render } from 'preact';
import { ApiClient } from './api/api-client.js';
import { App } from './shell/app.js';
import { restoreTheme } from './shell/theme.js';

restoreTheme();
const root = document.getElementById('app');
if (root) render(<App client={new ApiClient()} />, root);
