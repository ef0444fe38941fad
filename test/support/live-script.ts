/** What the model of `live-worker-process.ts` says, for the test that reads it elsewhere. */
export const LIVE_AGENT_ID = 'live-agent';
/** Streamed a piece every `STORY_DELAY_MS` for a prompt that mentions "story". */
export const STORY = ['Once ', 'upon ', 'a ', 'time ', 'the ', 'end.'];
export const STORY_DELAY_MS = 300;
/** Streamed by the failing first attempt for a prompt that mentions "flaky". */
export const WRONG = ['Wrong ', 'answer ', 'here.'];
/** The retry's answer, and the answer to anything else. */
export const RIGHT = 'Right.';
