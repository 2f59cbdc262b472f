// Checks ontologies and data with real OWL tools: the OWL API's OWL 2 DL profile checker
// and the HermiT reasoner (both in the HermiT.jar that PyPI's owlready2 ships).
//
//   java -cp HermiT.jar:DIR OwlCheck FILE...
//
// Every FILE (Turtle or N-Triples) is loaded and its axioms merged into one ontology;
// an owl:imports of a loaded ontology is resolved to that file, never fetched. Prints
// each profile violation and the reasoner's verdict; exits 0 only when there is no
// violation and the whole is consistent. tests/owl.rs compiles and runs it.

import java.io.File;
import java.util.HashMap;
import java.util.Map;
import java.util.List;
import org.semanticweb.HermiT.Reasoner;
import org.semanticweb.owlapi.apibinding.OWLManager;
import org.semanticweb.owlapi.model.IRI;
import org.semanticweb.owlapi.model.MissingImportHandlingStrategy;
import org.semanticweb.owlapi.model.OWLOntology;
import org.semanticweb.owlapi.model.OWLOntologyIRIMapper;
import org.semanticweb.owlapi.model.OWLOntologyLoaderConfiguration;
import org.semanticweb.owlapi.model.OWLOntologyManager;
import org.semanticweb.owlapi.io.FileDocumentSource;
import org.semanticweb.owlapi.profiles.OWL2DLProfile;
import org.semanticweb.owlapi.profiles.OWLProfileReport;
import org.semanticweb.owlapi.profiles.OWLProfileViolation;

public class OwlCheck {
    public static void main(String[] args) throws Exception {
        OWLOntologyManager manager = OWLManager.createOWLOntologyManager();
        // Resolve imports among the given files (by their ontology IRI), fetch nothing.
        final Map<IRI, IRI> local = new HashMap<IRI, IRI>();
        for (String arg : args) {
            OWLOntologyManager probe = OWLManager.createOWLOntologyManager();
            OWLOntology ontology = probe.loadOntologyFromOntologyDocument(
                    new FileDocumentSource(new File(arg)),
                    new OWLOntologyLoaderConfiguration()
                            .setMissingImportHandlingStrategy(MissingImportHandlingStrategy.SILENT));
            IRI iri = ontology.getOntologyID().getOntologyIRI();
            if (iri != null) {
                local.put(iri, IRI.create(new File(arg)));
            }
        }
        manager.addIRIMapper(new OWLOntologyIRIMapper() {
            public IRI getDocumentIRI(IRI ontologyIRI) {
                return local.get(ontologyIRI);
            }
        });
        OWLOntologyLoaderConfiguration config = new OWLOntologyLoaderConfiguration()
                .setMissingImportHandlingStrategy(MissingImportHandlingStrategy.THROW_EXCEPTION);
        OWLOntology merged = manager.createOntology(IRI.create("urn:ihigraph:owl-check"));
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
                manager.addAxioms(merged, closure.getAxioms());
            }
        }
        OWLProfileReport report = new OWL2DLProfile().checkOntology(merged);
        List<OWLProfileViolation> violations = report.getViolations();
        for (OWLProfileViolation violation : violations) {
            System.out.println("violation: " + violation);
        }
        System.out.println(violations.size() + " OWL 2 DL profile violations in "
                + merged.getAxiomCount() + " axioms");
        long start = System.currentTimeMillis();
        boolean consistent;
        try {
            consistent = new Reasoner.ReasonerFactory().createReasoner(merged).isConsistent();
        } catch (RuntimeException error) {
            System.out.println("reasoner refused: " + error);
            System.exit(1);
            return;
        }
        System.out.println("HermiT: " + (consistent ? "consistent" : "INCONSISTENT") + " ("
                + (System.currentTimeMillis() - start) + " ms)");
        System.exit(violations.isEmpty() && consistent ? 0 : 1);
    }
}
