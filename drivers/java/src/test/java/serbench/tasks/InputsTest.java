package serbench.tasks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import serbench.Failure;
import serbench.ModelType;
import serbench.Vectors;

/** A task's input is loaded once while its file stays the same, and again when it changes. */
class InputsTest {
    @Test
    void theSameFileIsLoadedOnceAndAChangedOneAgain(@TempDir Path dir) throws Exception {
        Path input = dir.resolve("part.jsonl");
        List<String> lines = Files.readAllLines(Vectors.jsonl("part"));
        Files.write(input, lines);
        ModelType<?> part = ModelType.byId("part");
        Inputs.Objects<?> first = Inputs.objects(input, part);
        assertSame(first, Inputs.objects(input, part));
        assertEquals(lines.size(), first.objects().size());
        assertEquals(Vectors.setChecksumOfFirst("part", lines.size()),
            first.checksum().json());

        Files.write(input, lines.subList(0, 1));
        Files.setLastModifiedTime(input, FileTime.fromMillis(1));  // even within a tick
        Inputs.Objects<?> changed = Inputs.objects(input, part);
        assertNotSame(first, changed);
        assertEquals(1, changed.count());
    }

    @Test
    void aBadInputFailsEveryTimeAndIsNotKept(@TempDir Path dir) throws Exception {
        Path input = dir.resolve("part.jsonl");
        Files.writeString(input, "{\"partkey\": \n");
        ModelType<?> part = ModelType.byId("part");
        assertThrows(Failure.class, () -> Inputs.objects(input, part));
        assertThrows(Failure.class, () -> Inputs.objects(input, part));
    }
}
