/**
 * The demo's ops-agent as an agents module, for `tollgate worker --agents dist/demo/agents.js`
 * (the Docker image and the Postgres topology script run it): the same agent `tollgate dev`
 * hosts, on the scripted model or on openai/<OPENAI_MODEL> when OPENAI_API_KEY is set.
 */
import { loadDemoAgents } from '../src/cli/load-agents.js';

export const agents = (await loadDemoAgents()).agents;
