/** The Prolog sandbox against the ScriptSandbox conformance suite, in Node. */
import { prologSandbox } from '../../src/prolog/prolog-script-sandbox.js';
import { describeScriptSandbox } from './script-sandbox-conformance.js';
import { PROLOG_FIXTURE } from './script-sandbox-prolog-fixture.js';

describeScriptSandbox('prolog (Node)', prologSandbox, PROLOG_FIXTURE);
