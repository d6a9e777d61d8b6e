package dev.tributary;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps the core framework-free and the dependencies pointing one way (docs/architecture.md,
 * "Layers").
 */
class ArchitectureTest {
  private static final String[] CORE = {
    "dev.tributary.common..",
    "dev.tributary.log..",
    "dev.tributary.replication..",
    "dev.tributary.metadata..",
    "dev.tributary.group..",
    "dev.tributary.consumer..",
    "dev.tributary.server..",
    "dev.tributary.security..",
    "dev.tributary.quota..",
    "dev.tributary.trace.."
  };
  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes =
        new ClassFileImporter()
            // Not Predefined.DO_NOT_INCLUDE_TESTS: it matches only target/test-classes, and
            // -Dbuild.dir moves it.
            .withImportOption(location -> !location.contains("/test-classes/"))
            .importPackages("dev.tributary");
  }

  @Test
  void coreDoesNotDependOnSpringServletOrJackson() {
    noClasses()
        .that()
        .resideInAnyPackage(CORE)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.springframework..",
            "jakarta.servlet..",
            "javax.servlet..",
            "tools.jackson..",
            "com.fasterxml.jackson..",
            "io.micrometer..")
        .because("the core is plain Java, unit-testable without a Spring context")
        .check(classes);
  }

  @Test
  void coreDoesNotDependOnTheWebLayer() {
    noClasses()
        .that()
        .resideInAnyPackage(CORE)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.tributary.api..", "dev.tributary.web..", "dev.tributary.config..")
        .check(classes);
  }

  @Test
  void logDependsOnlyOnCommon() {
    noClasses()
        .that()
        .resideInAPackage("dev.tributary.log..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.tributary.replication..",
            "dev.tributary.metadata..",
            "dev.tributary.server..",
            "dev.tributary.quota..",
            "dev.tributary.trace..",
            "dev.tributary.group..")
        .check(classes);
  }

  @Test
  void webPackagesDoNotDependOnEachOther() {
    noClasses()
        .that()
        .resideInAPackage("dev.tributary.api..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.tributary.web..", "dev.tributary.config..")
        .check(classes);
    noClasses()
        .that()
        .resideInAPackage("dev.tributary.web..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.tributary.api..", "dev.tributary.config..")
        .check(classes);
  }

  /**
   * The REST and dashboard adapters call the broker's services (docs/adr/0017): never the replica
   * manager, a partition or a log directly, so that every protocol reaches the same behaviour.
   */
  @Test
  void adaptersCallTheServicesNotTheReplicaManagerPartitionsOrLogs() {
    noClasses()
        .that()
        .resideInAnyPackage("dev.tributary.api..", "dev.tributary.web..")
        .should()
        .dependOnClassesThat()
        .haveFullyQualifiedName("dev.tributary.replication.ReplicaManager")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("dev.tributary.replication.Partition")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("dev.tributary.replication.ReplicaFetcherManager")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("dev.tributary.log.PartitionLog")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("dev.tributary.log.LogManager")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("dev.tributary.server.RunningBroker")
        .because("protocol adapters are thin: what two of them need belongs in server's services")
        .check(classes);
  }

  /**
   * kafka-clients (its generated messages, its Selector) is the Kafka listener's rim: confined to
   * {@code dev.tributary.kafka} so the core keeps its own record, error and metadata types and a
   * kafka-clients upgrade touches one package.
   */
  @Test
  void onlyTheKafkaListenerUsesKafkaClients() {
    noClasses()
        .that()
        .resideOutsideOfPackage("dev.tributary.kafka..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("org.apache.kafka..")
        .because(
            "the Kafka wire protocol is one adapter (docs/adr/0019), not a dependency of others")
        .check(classes);
    noClasses()
        .that()
        .resideInAPackage("dev.tributary.kafka..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.springframework..", "jakarta.servlet..", "tools.jackson..", "dev.tributary.api..")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("dev.tributary.replication.ReplicaManager")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("dev.tributary.replication.Partition")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("dev.tributary.log.LogManager")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("dev.tributary.server.RunningBroker")
        .because("the Kafka listener is a thin adapter over the broker services, like REST")
        .check(classes);
  }

  /**
   * The Kafka listener is an adapter at the rim: only the wiring builds it. Whoever needs what it
   * knows (the dashboard, its client connections) reads it through a protocol-neutral interface in
   * {@code server} ({@link dev.tributary.server.ClientConnections}).
   */
  @Test
  void onlyTheWiringReachesTheKafkaListener() {
    noClasses()
        .that()
        .resideOutsideOfPackages("dev.tributary.kafka..", "dev.tributary.config..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.tributary.kafka..")
        .because("protocol adapters do not depend on each other; server holds what they share")
        .check(classes);
  }

  @Test
  void theLoadGeneratorIsAStandaloneClient() {
    noClasses()
        .that()
        .resideInAPackage("dev.tributary.bench..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("org.springframework..", "jakarta.servlet..")
        .orShould()
        .dependOnClassesThat()
        .resideOutsideOfPackages(
            "dev.tributary.bench..",
            "java..",
            "javax..",
            "org.HdrHistogram..",
            "tools.jackson..",
            "com.fasterxml.jackson..",
            "com.sun.management..",
            "")
        .because("it talks to brokers over HTTP only, like any user")
        .check(classes);
  }

  @Test
  void theGuidedDemosAreAStandaloneClient() {
    noClasses()
        .that()
        .resideInAPackage("dev.tributary.demo..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("org.springframework..", "jakarta.servlet..")
        .orShould()
        .dependOnClassesThat()
        .resideOutsideOfPackages(
            "dev.tributary.demo..",
            "java..",
            "javax..",
            "tools.jackson..",
            "com.fasterxml.jackson..",
            "")
        .because("the demos talk to brokers over HTTP only, like any user (docs/demos.md)")
        .check(classes);
  }

  @Test
  void packagesHaveNoCycles() {
    slices().matching("dev.tributary.(*)..").should().beFreeOfCycles().check(classes);
  }
}
