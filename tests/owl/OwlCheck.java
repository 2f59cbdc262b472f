// Checks ontologies and data with real OWL tools: the OWL API's OWL 2 DL profile checker
// and the HermiT reasoner (both in the HermiT.jar that PyPI's owlready2 ships: HermiT
// 1.3.8 bundles the OWL API 3.4.3).
//
//   javac -cp HermiT.jar -d DIR OwlCheck.java
//   java -cp HermiT.jar:DIR OwlCheck FILE...
//
// Every FILE (Turtle, N-Triples or RDF/XML; not N-Quads or TriG: drop the graph names)
// is loaded and its axioms merged into one ontology. An owl:imports of a given file's
// ontology IRI is resolved to that file; any other import is an error, and nothing is
// ever fetched (http and https are refused inside this program). A data file should
// import <https://w3id.org/ihigraph/ontology>, so that the parser knows each property's
// kind. Four checks, each reported with figures:
//   1. the OWL API's OWL 2 DL profile: every violation;
//   2. closed-world domains and ranges of the data, which an OWL reasoner cannot check
//      (it infers a missing type instead of complaining): the subject of every property
//      assertion must have a type that is, by the told subclass axioms, in the domain;
//      the object of an object property, in the range; a literal must have the range's
//      datatype (a simple literal counts as xsd:string, an xsd:integer as xsd:decimal);
//   3. HermiT: consistency (it refuses a literal outside its datatype's lexical space,
//      such as an xsd:string holding U+0007, which XML 1.0 forbids);
//   4. HermiT: no unsatisfiable named class.
// Each check ends with a line that starts with its count ("0 OWL 2 DL profile
// violations in 445 axioms", "0 closed-world domain and range violations in ...",
// "HermiT: consistent (227 ms)" or "HermiT refused: ...", "0 unsatisfiable classes").
// Exits 0 only when there is no violation of any kind, 1 otherwise, 2 on bad usage or
// an unresolved import. tests/owl.rs compiles and runs it.

import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.net.URLConnection;
import java.net.URLStreamHandler;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.semanticweb.HermiT.Reasoner;
import org.semanticweb.owlapi.apibinding.OWLManager;
import org.semanticweb.owlapi.io.FileDocumentSource;
import org.semanticweb.owlapi.model.AxiomType;
import org.semanticweb.owlapi.model.IRI;
import org.semanticweb.owlapi.model.MissingImportHandlingStrategy;
import org.semanticweb.owlapi.model.OWLClass;
import org.semanticweb.owlapi.model.OWLClassAssertionAxiom;
import org.semanticweb.owlapi.model.OWLClassExpression;
import org.semanticweb.owlapi.model.OWLDataPropertyAssertionAxiom;
import org.semanticweb.owlapi.model.OWLDataPropertyDomainAxiom;
import org.semanticweb.owlapi.model.OWLDataPropertyRangeAxiom;
import org.semanticweb.owlapi.model.OWLDataRange;
import org.semanticweb.owlapi.model.OWLDatatype;
import org.semanticweb.owlapi.model.OWLEquivalentClassesAxiom;
import org.semanticweb.owlapi.model.OWLImportsDeclaration;
import org.semanticweb.owlapi.model.OWLIndividual;
import org.semanticweb.owlapi.model.OWLLiteral;
import org.semanticweb.owlapi.model.OWLObjectPropertyAssertionAxiom;
import org.semanticweb.owlapi.model.OWLObjectPropertyDomainAxiom;
import org.semanticweb.owlapi.model.OWLObjectPropertyRangeAxiom;
import org.semanticweb.owlapi.model.OWLObjectUnionOf;
import org.semanticweb.owlapi.model.OWLOntology;
import org.semanticweb.owlapi.model.OWLOntologyCreationException;
import org.semanticweb.owlapi.model.OWLOntologyIRIMapper;
import org.semanticweb.owlapi.model.OWLOntologyLoaderConfiguration;
import org.semanticweb.owlapi.model.OWLOntologyManager;
import org.semanticweb.owlapi.model.OWLRuntimeException;
import org.semanticweb.owlapi.model.OWLSubClassOfAxiom;
import org.semanticweb.owlapi.profiles.OWL2DLProfile;
import org.semanticweb.owlapi.profiles.OWLProfileViolation;
import org.semanticweb.owlapi.reasoner.OWLReasoner;

public class OwlCheck {
    /** Where an ontology IRI that is not one of the given files leads: to no file. */
    static IRI nowhere(IRI ontologyIRI) {
        return IRI.create(new File("/nonexistent/owl-check-fetches-nothing/"
                + Integer.toHexString(ontologyIRI.toString().hashCode()) + ".ttl"));
    }
    static final String XSD = "http://www.w3.org/2001/XMLSchema#";
    /** The closed-world findings printed in full; the rest are counted. */
    static final int SHOWN = 50;

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            System.err.println("usage: java -cp HermiT.jar:DIR OwlCheck FILE...");
            System.exit(2);
        }
        refuseNetwork();
        OWLOntology merged;
        try {
            merged = load(args);
        } catch (OWLOntologyCreationException | OWLRuntimeException error) {
            System.out.println("cannot load: " + error.getMessage()
                    + " (give every imported ontology's file among the arguments)");
            System.exit(2);
            return;
        }
        int problems = profile(merged);
        problems += closedWorld(merged);
        problems += reason(merged);
        System.exit(problems == 0 ? 0 : 1);
    }

    /** No http, https or ftp URL opens in this program: the OWL API would fetch imports. */
    static void refuseNetwork() {
        URL.setURLStreamHandlerFactory(protocol -> {
            if (!protocol.equals("http") && !protocol.equals("https") && !protocol.equals("ftp")) {
                return null;
            }
            return new URLStreamHandler() {
                protected URLConnection openConnection(URL url) throws IOException {
                    throw new IOException("OwlCheck fetches nothing: " + url);
                }
            };
        });
    }

    static OWLOntology load(String[] args) throws OWLOntologyCreationException {
        // First the ontology IRI of each file, its imports left unresolved.
        final Map<IRI, IRI> local = new HashMap<IRI, IRI>();
        for (String arg : args) {
            OWLOntologyManager probe = OWLManager.createOWLOntologyManager();
            probe.addIRIMapper(new OWLOntologyIRIMapper() {
                public IRI getDocumentIRI(IRI ontologyIRI) {
                    return nowhere(ontologyIRI);
                }
            });
            OWLOntology ontology = probe.loadOntologyFromOntologyDocument(
                    new FileDocumentSource(new File(arg)),
                    new OWLOntologyLoaderConfiguration()
                            .setMissingImportHandlingStrategy(MissingImportHandlingStrategy.SILENT));
            IRI iri = ontology.getOntologyID().getOntologyIRI();
            if (iri != null) {
                local.put(iri, IRI.create(new File(arg)));
            }
        }
        // Then all of them in one manager, each import resolved to its file.
        OWLOntologyManager manager = OWLManager.createOWLOntologyManager();
        manager.addIRIMapper(new OWLOntologyIRIMapper() {
            public IRI getDocumentIRI(IRI ontologyIRI) {
                IRI file = local.get(ontologyIRI);
                return file != null ? file : nowhere(ontologyIRI);
            }
        });
        OWLOntologyLoaderConfiguration config = new OWLOntologyLoaderConfiguration()
                .setMissingImportHandlingStrategy(MissingImportHandlingStrategy.THROW_EXCEPTION);
        OWLOntologyManager mergedManager = OWLManager.createOWLOntologyManager();
        OWLOntology merged = mergedManager.createOntology(IRI.create("urn:ihigraph:owl-check"));
        for (String arg : args) {
            IRI document = IRI.create(new File(arg));
            OWLOntology ontology = null;
            for (OWLOntology loaded : manager.getOntologies()) {
                if (document.equals(manager.getOntologyDocumentIRI(loaded))) {
                    ontology = loaded;
                }
            }
            if (ontology == null) {
                ontology = manager.loadOntologyFromOntologyDocument(new FileDocumentSource(new File(arg)), config);
            }
            for (OWLOntology closure : manager.getImportsClosure(ontology)) {
                mergedManager.addAxioms(merged, closure.getAxioms());
            }
        }
        // The OWL API passes over an import it could not load; so say it here.
        for (OWLOntology loaded : manager.getOntologies()) {
            for (OWLImportsDeclaration declaration : loaded.getImportsDeclarations()) {
                if (manager.getImportedOntology(declaration) == null) {
                    throw new OWLOntologyCreationException("unresolved import of <"
                            + declaration.getIRI() + "> in " + manager.getOntologyDocumentIRI(loaded));
                }
            }
        }
        return merged;
    }

    static int profile(OWLOntology merged) {
        List<OWLProfileViolation> violations = new OWL2DLProfile().checkOntology(merged).getViolations();
        for (OWLProfileViolation violation : violations) {
            System.out.println("violation: " + violation);
        }
        System.out.println(violations.size() + " OWL 2 DL profile violations in "
                + merged.getAxiomCount() + " axioms");
        return violations.size();
    }

    static int closedWorld(OWLOntology o) {
        List<String> findings = new ArrayList<String>();
        int assertions = 0;
        for (OWLObjectPropertyAssertionAxiom a : o.getAxioms(AxiomType.OBJECT_PROPERTY_ASSERTION)) {
            assertions++;
            for (OWLObjectPropertyDomainAxiom d : o.getObjectPropertyDomainAxioms(a.getProperty())) {
                typed(o, a.getSubject(), d.getDomain(), "domain of " + a.getProperty(), findings);
            }
            for (OWLObjectPropertyRangeAxiom r : o.getObjectPropertyRangeAxioms(a.getProperty())) {
                typed(o, a.getObject(), r.getRange(), "range of " + a.getProperty(), findings);
            }
        }
        for (OWLDataPropertyAssertionAxiom a : o.getAxioms(AxiomType.DATA_PROPERTY_ASSERTION)) {
            assertions++;
            if (a.getProperty().isAnonymous()) {
                continue;
            }
            for (OWLDataPropertyDomainAxiom d : o.getDataPropertyDomainAxioms(a.getProperty().asOWLDataProperty())) {
                typed(o, a.getSubject(), d.getDomain(), "domain of " + a.getProperty(), findings);
            }
            for (OWLDataPropertyRangeAxiom r : o.getDataPropertyRangeAxioms(a.getProperty().asOWLDataProperty())) {
                if (!hasDatatype(a.getObject(), r.getRange())) {
                    findings.add(a.getObject() + " (" + a.getSubject() + " " + a.getProperty()
                            + ") is not in the range " + r.getRange());
                }
            }
        }
        for (int i = 0; i < findings.size() && i < SHOWN; i++) {
            System.out.println("closed-world: " + findings.get(i));
        }
        if (findings.size() > SHOWN) {
            System.out.println("closed-world: ... and " + (findings.size() - SHOWN) + " more");
        }
        System.out.println(findings.size() + " closed-world domain and range violations in "
                + assertions + " property assertions");
        return findings.size();
    }

    /** Says so in findings unless the told types of individual put it in expression. */
    static void typed(OWLOntology o, OWLIndividual individual, OWLClassExpression expression, String what,
            List<String> findings) {
        Set<OWLClass> types = toldTypes(o, individual);
        Boolean in = member(types, expression);
        if (in == null) {
            findings.add(what + ": cannot check against " + expression);
        } else if (!in) {
            findings.add(individual + " is not in the " + what + " " + expression + ": its types are " + types);
        }
    }

    static Boolean member(Set<OWLClass> types, OWLClassExpression expression) {
        if (expression.isOWLThing()) {
            return true;
        }
        if (!expression.isAnonymous()) {
            return types.contains(expression.asOWLClass());
        }
        if (expression instanceof OWLObjectUnionOf) {
            for (OWLClassExpression operand : ((OWLObjectUnionOf) expression).getOperands()) {
                Boolean in = member(types, operand);
                if (in == null || in) {
                    return in;
                }
            }
            return false;
        }
        return null;
    }

    /** The asserted named types of an individual and their told superclasses. */
    static Set<OWLClass> toldTypes(OWLOntology o, OWLIndividual individual) {
        Set<OWLClass> types = new HashSet<OWLClass>();
        List<OWLClass> todo = new ArrayList<OWLClass>();
        for (OWLClassAssertionAxiom a : o.getClassAssertionAxioms(individual)) {
            if (!a.getClassExpression().isAnonymous()) {
                todo.add(a.getClassExpression().asOWLClass());
            }
        }
        while (!todo.isEmpty()) {
            OWLClass c = todo.remove(todo.size() - 1);
            if (!types.add(c)) {
                continue;
            }
            for (OWLSubClassOfAxiom s : o.getSubClassAxiomsForSubClass(c)) {
                if (!s.getSuperClass().isAnonymous()) {
                    todo.add(s.getSuperClass().asOWLClass());
                }
            }
            for (OWLEquivalentClassesAxiom e : o.getEquivalentClassesAxioms(c)) {
                todo.addAll(e.getNamedClasses());
            }
        }
        return types;
    }

    static boolean hasDatatype(OWLLiteral literal, OWLDataRange range) {
        if (!range.isDatatype()) {
            return true; // none in these ontologies; HermiT checks such ranges
        }
        OWLDatatype expected = range.asOWLDatatype();
        String want = expected.getIRI().toString();
        String have = literal.getDatatype().getIRI().toString();
        if (expected.isTopDatatype() || want.equals(have)) {
            return true;
        }
        if (want.equals(XSD + "string")) {
            return literal.isRDFPlainLiteral() && !literal.hasLang();
        }
        return want.equals(XSD + "decimal") && have.equals(XSD + "integer");
    }

    static int reason(OWLOntology merged) {
        long start = System.currentTimeMillis();
        OWLReasoner reasoner;
        boolean consistent;
        try {
            reasoner = new Reasoner.ReasonerFactory().createReasoner(merged);
            consistent = reasoner.isConsistent();
        } catch (RuntimeException error) {
            System.out.println("HermiT refused: " + error);
            return 1;
        }
        System.out.println("HermiT: " + (consistent ? "consistent" : "INCONSISTENT") + " ("
                + (System.currentTimeMillis() - start) + " ms)");
        if (!consistent) {
            return 1;
        }
        start = System.currentTimeMillis();
        Set<OWLClass> unsatisfiable = reasoner.getUnsatisfiableClasses().getEntitiesMinusBottom();
        System.out.println(unsatisfiable.size() + " unsatisfiable classes"
                + (unsatisfiable.isEmpty() ? "" : " " + unsatisfiable) + " (HermiT, "
                + (System.currentTimeMillis() - start) + " ms)");
        reasoner.dispose();
        return unsatisfiable.size();
    }
}
