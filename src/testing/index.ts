/** Test helpers for agents built on Tollgate: `import { scriptedModel } from 'tollgate/testing'`. */
export {
  scriptedModel,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedTurn,
  type TurnPicker,
} from './scripted-model.js';
