import { describe, expect, it } from 'vitest';
import { chatPrompt, completionPrompt, CONTEXT_CHAT_TEMPLATE, fixedStarter, setupFor } from './index.js';

const own = {
  api: 'github_v3',
  task: 'Get the user `username`.',
  config: { method: 'get', url: 'https://api.github.com/users/5b086371' },
  starter_code: "var axios = require('axios');\n\nvar utils = {\n  getBio: function(username){\n    // {task}\n    return axios.",
  template_url: 'https://api.github.com/users/${username}',
  definitions: { username: '5b086371' },
};

describe('setups for samples with their own starter code (upstream instantiate_prompt)', () => {
  it('full completion: the starter with the task filled in, ending at `axios.`', () => {
    const setup = setupFor(own, 'full');
    expect(setup).toMatchObject({ origin: 'sample', mode: 'full', client: 'axios' });
    expect(setup.starter).toBe(own.starter_code.replace('{task}', own.task));
    expect(setup.starter.slice(setup.callStart)).toBe('axios.');
  });

  it('argument completion appends the method and the template URL in backticks (no comma), else the URL in single quotes', () => {
    expect(setupFor(own, 'argument').starter.endsWith('    return axios.get(`https://api.github.com/users/${username}`')).toBe(true);
    const { template_url: _t, ...plain } = own;
    expect(setupFor(plain, 'argument').starter.endsWith("axios.get('https://api.github.com/users/5b086371'")).toBe(true);
  });

  it('the completion prompt carries the starter; the chat prompt is upstream\'s context prompt', () => {
    const setup = setupFor(own, 'full');
    expect(completionPrompt(own, setup).text.endsWith(setup.starter)).toBe(true);
    const chat = chatPrompt(own, setupFor(own, 'full', { style: 'chat' }));
    expect(chat.text).toBe(
      CONTEXT_CHAT_TEMPLATE.replace('{spec}', '').replace('{api}', 'github_v3').replace('{extra_instructions}', ' without any explanations').replace('{starter_code}', () => setup.starter),
    );
    expect(chat.text).toContain('Your next task is about the github_v3 API. Complete the following code snippet without any explanations:\n\n```javascript\n');
  });

  it('samples without a starter keep the fixed starter, byte for byte', () => {
    const fixed = { api: 'a', task: 'List\nthings', config: { method: 'POST', url: "https://x/it's" } };
    expect(setupFor(fixed, 'full').starter).toBe("// List\n// things\nconst axios = require('axios');\n\naxios.");
    expect(setupFor(fixed, 'argument', { quote: 'double', awaitStyle: true }).starter).toBe(`// List\n// things\nconst axios = require('axios');\n\nconst response = await axios.post("https://x/it's",`);
    expect(setupFor(fixed, 'argument').starter).toBe(fixedStarter('argument', fixed.task, fixed.config));
    expect(setupFor(fixed, 'full')).toMatchObject({ origin: 'fixed', definitions: {}, callPrelude: "const axios = require('axios');\n" });
  });
});
