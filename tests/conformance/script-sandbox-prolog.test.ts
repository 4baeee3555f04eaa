/** The Prolog sandbox against the ScriptSandbox conformance suite, in Node. */
import { prologSandbox } from '../../src/prolog/prolog-script-sandbox.js';
import { describeScriptSandboxConformance } from '../../src/testing/script-sandbox-conformance.js';
import { PROLOG_FIXTURE } from './script-sandbox-prolog-fixture.js';

describeScriptSandboxConformance('prolog (Node)', prologSandbox, PROLOG_FIXTURE);
